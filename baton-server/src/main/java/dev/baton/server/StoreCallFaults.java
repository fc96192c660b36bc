package dev.baton.server;

import dev.baton.testkit.FaultInjectingStore;
import java.util.Locale;
import java.util.Set;

/**
 * The straggler the fault harness can put on a store node's own calls ({@code --chaos-hooks} on a store backend, the
 * stdin commands {@code straggle acquire|renew|release} and {@code deliver}): the node's next call of that kind is
 * held inside the node, before it reaches the store, while every later call passes; {@code deliver} sends it to the
 * store then and hands its answer to the caller, long after the caller timed out and went on. It is what a statement
 * queued behind a slow one in a connection pool does, at the one point where it matters, which a fault on the network
 * link cannot aim at. Thread-safe.
 */
final class StoreCallFaults {

    /** The calls that can be held: the lease calls a straggler changes the outcome of. */
    static final Set<String> OPERATIONS = Set.of("acquire", "renew", "release");

    private final FaultInjectingStore store;

    StoreCallFaults(FaultInjectingStore store) {
        this.store = store;
    }

    /**
     * Holds the next {@code operation} call back until {@link #deliver()}.
     *
     * @throws IllegalArgumentException if {@code operation} is not one of {@link #OPERATIONS}
     */
    void straggle(String operation) {
        String op = operation.toLowerCase(Locale.ROOT);
        if (!OPERATIONS.contains(op)) {
            throw new IllegalArgumentException("takes acquire, renew or release, not '" + operation + "'");
        }
        store.holdNext(op);
    }

    /** Sends the oldest held call to the store now; false if no call was held (none of that kind was made). */
    boolean deliver() {
        return store.deliverHeld();
    }
}

package dev.baton.server;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.ForwardingStore;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.LeaseStore;
import dev.baton.core.store.SessionStore;
import dev.baton.core.store.Subscription;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The straggler the fault harness can put on a store node's own calls ({@code --chaos-hooks} on a store backend, the
 * stdin commands {@code straggle acquire|renew|release} and {@code deliver}): the node's next call of that kind is
 * held inside the node, before it reaches the store, while every later call passes; {@code deliver} sends it to the
 * store then and hands its answer to the caller, long after the caller timed out and went on. It is what a statement
 * queued behind a slow one in a connection pool does, at the one point where it matters, which a fault on the network
 * link cannot aim at.
 *
 * <p>The lease role is wrapped, and so is the session role where the store offers one: there a group's lease is
 * bound to the process's session, so {@code acquire} and {@code release} are the session's acquire and release, and
 * {@code renew} is the session's keep-alive (what keeps every group it holds). Every other role, and
 * {@link #close()}, go to the wrapped store. Thread-safe.
 */
final class StoreCallFaults extends ForwardingStore {

    /** The calls that can be held: the lease calls a straggler changes the outcome of. */
    static final Set<String> OPERATIONS = Set.of("acquire", "renew", "release");

    private final LeaseStore leases = new HeldLeases();
    private final Optional<SessionStore> sessions;
    /** The operation whose next call is to be held back, or null. Guarded by {@link #held}. */
    private String holdOperation;
    /** Calls held back, oldest first, waiting for {@link #deliver()}. */
    private final ArrayDeque<Runnable> held = new ArrayDeque<>();

    StoreCallFaults(CoordinationStore store) {
        super(store);
        this.sessions = store.sessions().map(HeldSessions::new);
    }

    @Override
    public LeaseStore leases() {
        return leases;
    }

    @Override
    public Optional<SessionStore> sessions() {
        return sessions;
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
        synchronized (held) {
            holdOperation = op;
        }
    }

    /** Sends the oldest held call to the store now; false if no call was held (none of that kind was made). */
    boolean deliver() {
        Runnable late;
        synchronized (held) {
            late = held.pollFirst();
        }
        if (late == null) {
            return false;
        }
        late.run();
        return true;
    }

    private <T> CompletableFuture<T> call(String operation, Supplier<CompletableFuture<T>> action) {
        CompletableFuture<T> caller = new CompletableFuture<>();
        synchronized (held) {
            if (!operation.equals(holdOperation)) {
                return action.get();
            }
            holdOperation = null;
            held.addLast(() -> action.get().whenComplete((value, failure) -> {
                if (failure != null) {
                    caller.completeExceptionally(failure);
                } else {
                    caller.complete(value);
                }
            }));
        }
        return caller;
    }

    /** The wrapped store's lease role, with the chosen call held back. */
    private final class HeldLeases implements LeaseStore {

        private LeaseStore store() {
            return delegate().leases();
        }

        @Override
        public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
            return call("acquire", () -> store().acquire(group, candidate, ttl));
        }

        @Override
        public CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl) {
            return call("renew", () -> store().renew(group, nodeId, term, ttl));
        }

        @Override
        public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
            return call("release", () -> store().release(group, nodeId, term));
        }

        @Override
        public CompletableFuture<Optional<Lease>> read(String group) {
            return store().read(group);
        }

        @Override
        public Subscription watch(String group, Consumer<LeaseNotice> listener) {
            return store().watch(group, listener);
        }
    }

    /** The wrapped store's session role, with the chosen call held back: the keep-alive counts as the renewal. */
    private final class HeldSessions implements SessionStore {

        private final SessionStore store;

        HeldSessions(SessionStore store) {
            this.store = store;
        }

        @Override
        public CompletableFuture<String> open(NodeInfo owner, Duration ttl) {
            return store.open(owner, ttl);
        }

        @Override
        public CompletableFuture<Boolean> keepAlive(String session, Duration ttl) {
            return call("renew", () -> store.keepAlive(session, ttl));
        }

        @Override
        public CompletableFuture<Boolean> close(String session) {
            return store.close(session);
        }

        @Override
        public CompletableFuture<Map<String, Duration>> remaining(Set<String> ids) {
            return store.remaining(ids);
        }

        @Override
        public CompletableFuture<AcquireResult> acquire(String group, String session, NodeInfo candidate) {
            return call("acquire", () -> store.acquire(group, session, candidate));
        }

        @Override
        public CompletableFuture<Boolean> release(String group, String session, long term) {
            return call("release", () -> store.release(group, session, term));
        }

        @Override
        public CompletableFuture<Void> join(String group, String session) {
            return store.join(group, session);
        }

        @Override
        public CompletableFuture<Boolean> leave(String group, String session) {
            return store.leave(group, session);
        }

        @Override
        public CompletableFuture<Map<String, NodeInfo>> members(String group) {
            return store.members(group);
        }
    }
}

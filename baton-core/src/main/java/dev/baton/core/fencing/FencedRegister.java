package dev.baton.core.fencing;

import dev.baton.core.Leadership;
import dev.baton.core.store.FencedStore;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.FencedWriteResult;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A named register in the coordination store that only the group's current leader can write: the store accepts a
 * write only under the newest term it has issued for the group (see {@link FencedStore}). Safe to share between
 * threads.
 */
public final class FencedRegister {

    private final FencedStore store;
    private final String group;
    private final String name;

    public FencedRegister(FencedStore store, String group, String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("register name must not be blank");
        }
        this.store = store;
        this.group = group;
        this.name = name;
    }

    public String name() {
        return name;
    }

    /**
     * Writes {@code value} under {@code leadership}'s term. A leadership that is no longer
     * {@linkplain Leadership#isValid() valid} (its local deadline passed, or its election lost the term) is refused
     * without contacting the store: the result is not accepted and its {@code currentTerm} is the leadership's own
     * term. A valid one can still be refused by the store if a newer term exists, which is what catches a pause
     * between this check and the store's decision.
     */
    public CompletableFuture<FencedWriteResult> write(Leadership leadership, byte[] value) {
        if (!leadership.isValid()) {
            return CompletableFuture.completedFuture(new FencedWriteResult(false, leadership.term()));
        }
        return writeWithTerm(leadership.nodeId(), leadership.term(), value);
    }

    /**
     * Writes under an explicit term, with no local check: the store alone decides. For callers that carry a term
     * from elsewhere (and for tests of the store's fence); a leader holding its {@link Leadership} should use
     * {@link #write(Leadership, byte[])}, which also refuses a leadership that is no longer valid.
     */
    public CompletableFuture<FencedWriteResult> writeWithTerm(String nodeId, long term, byte[] value) {
        return store.fencedWrite(group, name, nodeId, term, value);
    }

    /** The register's last accepted write, if any. */
    public CompletableFuture<Optional<FencedValue>> read() {
        return store.fencedRead(group, name);
    }
}

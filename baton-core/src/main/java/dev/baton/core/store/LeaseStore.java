package dev.baton.core.store;

import dev.baton.core.NodeInfo;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The lease half of the store contract (DESIGN §3). Every operation is atomic on the store, and expiry is decided by
 * the store's clock only.
 *
 * <p>Methods must not block the calling thread: they return a future that the store completes from its own I/O
 * threads. A future may also never complete (a hanging server); callers bound every call with their own timeout.
 */
public interface LeaseStore {

    /**
     * Takes the group's lease if no unexpired lease exists, or if the caller itself holds it (a node that gave up a
     * lease locally may take it back, under a new term). The store assigns a term above the previous one (the
     * previous term + 1 on the in-memory and PostgreSQL stores; Redis may jump ahead to its clock in microseconds, so
     * callers must not expect consecutive terms); the term must also exceed every term the store could have issued
     * before, even after the store lost its data or came back with an older state. On
     * success the store records {@code candidate} as the leader's process info and publishes an
     * {@link LeaseNotice.Kind#ACQUIRED} notice.
     */
    CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl);

    /** Extends the lease to {@code ttl} from now if {@code nodeId} still holds it under {@code term}. */
    CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl);

    /**
     * Deletes the lease if {@code nodeId} holds it under {@code term}, and publishes a
     * {@link LeaseNotice.Kind#RELEASED} notice. Returns whether anything was released.
     */
    CompletableFuture<Boolean> release(String group, String nodeId, long term);

    /** The current unexpired lease, if any. */
    CompletableFuture<Optional<Lease>> read(String group);

    /** Delivers acquisition and release notices for {@code group} until the subscription is closed. */
    Subscription watch(String group, Consumer<LeaseNotice> listener);
}

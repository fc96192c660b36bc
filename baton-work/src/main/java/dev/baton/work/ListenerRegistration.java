package dev.baton.work;

import dev.baton.core.Registration;
import java.util.concurrent.CompletableFuture;

/**
 * A detection listener added to a {@link WorkCluster}. {@link #close()} removes it (idempotent).
 *
 * <p>Results are routed by the leader, which learns of a process's listeners from the process's announcements;
 * {@link #routed()} completes once the leader has recorded this listener, so every result the leader routes after
 * that reaches it. Results routed before may not.
 */
public interface ListenerRegistration extends Registration {

    /** Completes once the leader has recorded this listener (and stored it for the next leader). */
    CompletableFuture<Void> routed();
}

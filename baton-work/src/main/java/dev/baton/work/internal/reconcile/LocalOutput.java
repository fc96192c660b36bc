package dev.baton.work.internal.reconcile;

import dev.baton.work.WorkClusterEvent;
import dev.baton.work.worker.WorkerMessage;

/** What the leader hands to its own process: events for the cluster's listeners, and results for its listeners. */
public interface LocalOutput {

    /** An event for the work cluster's listeners; any thread, never blocks. */
    void event(WorkClusterEvent event);

    /**
     * Delivers a result to this process's listeners and runs {@code done} once they have had it (or at once if none
     * wants it), so the leader can count results waiting for slow listeners against its inbound bound.
     */
    void deliver(String workerUrl, WorkerMessage.ImageDetection detection, boolean global, Runnable done);
}

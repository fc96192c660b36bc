package dev.baton.work;

/**
 * Receives a {@link WorkCluster}'s events. Runs on the cluster's listener executor (by default its own thread), one
 * event at a time, in the order they happened on this process; it must not block. Events are facts at the time they
 * happened: by the time a listener sees {@code worker:online}, the worker may be gone again. A listener that throws
 * is logged and keeps receiving.
 */
@FunctionalInterface
public interface WorkClusterListener {

    void onEvent(WorkClusterEvent event);
}

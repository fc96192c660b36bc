package dev.baton.work;

import dev.baton.work.worker.WorkerEvent;

/**
 * What a {@link WorkCluster} tells its {@link WorkClusterListener}s, with the seed's event names ({@link #name()}).
 *
 * <p>Where each comes from: worker connection events ({@code worker:online}, {@code worker:offline},
 * {@code worker:connecting}, {@code worker:connected}, {@code worker:disconnected}, {@code worker:websocket_error})
 * and item events on the leader, which holds the connections and assigns the items; {@code worker:detection_result}
 * on each process that delivers a result to its listeners.
 */
public sealed interface WorkClusterEvent {

    /** The seed-style name, e.g. {@code worker:online} or {@code item:moved}. */
    String name();

    /** A worker connection event or a delivered result; {@link WorkerEvent#name()} is the seed's name. */
    record WorkerNotice(WorkerEvent event) implements WorkClusterEvent {
        @Override
        public String name() {
            return event.name();
        }
    }

    /** {@code item:assigned}: the leader subscribed an item that was on no worker. */
    record ItemAssigned(String item, String workerUrl) implements WorkClusterEvent {
        @Override
        public String name() {
            return "item:assigned";
        }
    }

    /** {@code item:moved}: the leader moved an item from one worker to another (worker gone, or balance). */
    record ItemMoved(String item, String fromWorkerUrl, String toWorkerUrl) implements WorkClusterEvent {
        @Override
        public String name() {
            return "item:moved";
        }
    }

    /** {@code item:unassigned}: a desired item is on no worker ({@code fromWorkerUrl} may be null). */
    record ItemUnassigned(String item, String fromWorkerUrl, String reason) implements WorkClusterEvent {
        @Override
        public String name() {
            return "item:unassigned";
        }
    }

    /**
     * {@code worker:draining} (Baton's): the leader started draining a worker: its items move to other workers,
     * each started there before it is stopped on this one.
     *
     * @param announced whether the worker announced it (it is about to stop), rather than an operator asking
     */
    record WorkerDraining(String workerUrl, String reason, boolean announced) implements WorkClusterEvent {
        @Override
        public String name() {
            return "worker:draining";
        }
    }
}

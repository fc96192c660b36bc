package dev.baton.work.reconcile;

import dev.baton.core.Membership;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.work.AssignmentHook;
import dev.baton.work.SessionPatchHandler;
import dev.baton.work.WorkClusterConfig;
import dev.baton.work.WorkClusterEvent;
import dev.baton.work.route.BusCodec;
import dev.baton.work.source.DesiredStateSource;
import dev.baton.work.worker.WorkerMessage;
import dev.baton.work.worker.WorkerTransport;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * What a {@link LeaderRole} runs on: the work cluster's store, identity, settings, threads and hooks. Built once by
 * the cluster and shared by every leadership it holds.
 *
 * @param processId      this process (the election's node id)
 * @param workerUrls     every worker's WebSocket URL
 * @param scheduler      runs the role, its connections and its timers, one task at a time
 * @param sourceExecutor runs blocking calls: the desired state source, the assignment hook, the session handler
 * @param events         where the role's events go (the cluster forwards them to its listeners)
 * @param localResults   delivers a result to this process's own listeners: (worker URL, result, global)
 */
public record LeaderEnvironment(CoordinationStore store, String group, String processId, Membership membership,
                                WorkClusterConfig config, List<String> workerUrls, Scheduler scheduler, Clock clock,
                                Random random, WorkerTransport transport, Executor sourceExecutor,
                                DesiredStateSource source, AssignmentHook hook, SessionPatchHandler sessions,
                                BusCodec codec, Consumer<WorkClusterEvent> events, LocalResults localResults) {

    public LeaderEnvironment {
        workerUrls = List.copyOf(workerUrls);
    }

    /** Delivers a result to this process's listeners. */
    @FunctionalInterface
    public interface LocalResults {
        void deliver(String workerUrl, WorkerMessage.ImageDetection detection, boolean global);

        /**
         * Delivers a result and runs {@code done} once this process's listeners have had it (or at once if none
         * wants it), so the leader can count results waiting for slow listeners against its inbound bound. The
         * default delivers and runs {@code done} at once.
         */
        default void deliver(String workerUrl, WorkerMessage.ImageDetection detection, boolean global,
                             Runnable done) {
            try {
                deliver(workerUrl, detection, global);
            } finally {
                done.run();
            }
        }
    }
}

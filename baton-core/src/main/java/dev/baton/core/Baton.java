package dev.baton.core;

import dev.baton.core.eventlog.ClusterEventRecorder;
import dev.baton.core.lease.LeaseElection;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.time.Clock;
import dev.baton.core.time.ExecutorScheduler;
import dev.baton.core.time.Scheduler;
import java.security.SecureRandom;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.Executor;

/**
 * The front door: builds elections over a store and wires them to real threads and time.
 *
 * <pre>{@code
 * try (RedisStore store = RedisStore.connect("redis://127.0.0.1:6379");
 *      Election election = Baton.election(store).group("orders-scheduler").build()) {
 *     election.addListener(event -> {
 *         if (event instanceof ElectionEvent.LeadershipAcquired acquired) {
 *             startScheduling(acquired.leadership());   // fence writes with leadership.term()
 *         } else if (event instanceof ElectionEvent.LeadershipLost) {
 *             stopScheduling();
 *         }
 *     });
 *     election.start();
 *     ...
 * }
 * }</pre>
 */
public final class Baton {

    private Baton() {
    }

    /** Starts building a lease election on {@code store}. */
    public static ElectionBuilder election(CoordinationStore store) {
        return new ElectionBuilder(store);
    }

    /** Builds a {@link LeaseElection}. Only {@link #group(String)} is required. */
    public static final class ElectionBuilder {
        private final CoordinationStore store;
        private String group;
        private NodeInfo node;
        private ElectionConfig config = ElectionConfig.defaults();
        private Clock clock = Clock.system();
        private Scheduler scheduler;
        private Executor eventExecutor;
        private Random random;
        private boolean recordEvents = true;
        private ElectionMetrics metrics = ElectionMetrics.NONE;

        private ElectionBuilder(CoordinationStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /** The group to elect a leader for, e.g. {@code orders-scheduler}. Required. */
        public ElectionBuilder group(String name) {
            this.group = name;
            return this;
        }

        /** This process as the registry should show it. Default: a random UUID id, identifier {@code baton}. */
        public ElectionBuilder node(NodeInfo self) {
            this.node = self;
            return this;
        }

        public ElectionBuilder config(ElectionConfig value) {
            this.config = Objects.requireNonNull(value, "config");
            return this;
        }

        /** Time source; default {@link Clock#system()}. */
        public ElectionBuilder clock(Clock value) {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        /** Scheduler for the state machine; default: a dedicated thread, stopped when the election closes. */
        public ElectionBuilder scheduler(Scheduler value) {
            this.scheduler = value;
            return this;
        }

        /** Default executor for listeners; default: a dedicated event thread, stopped when the election closes. */
        public ElectionBuilder eventExecutor(Executor value) {
            this.eventExecutor = value;
            return this;
        }

        /** Source of jitter; default: seeded from {@link SecureRandom}. */
        public ElectionBuilder random(Random value) {
            this.random = value;
            return this;
        }

        /**
         * Whether to write leaderships won and lost, members joined and left, and degraded periods to the store's
         * cluster event log ({@link ClusterEventRecorder}); default true.
         */
        public ElectionBuilder recordEvents(boolean value) {
            this.recordEvents = value;
            return this;
        }

        /** Where to report store call timings and renewal margins; default: nowhere. */
        public ElectionBuilder metrics(ElectionMetrics value) {
            this.metrics = Objects.requireNonNull(value, "metrics");
            return this;
        }

        /** Builds the election, not started; it offers the store's fenced registers and process registry. */
        public StoreElection build() {
            if (group == null || group.isBlank()) {
                throw new IllegalArgumentException("group must be set");
            }
            NodeInfo self = node != null ? node : NodeInfo.create("baton");
            ExecutorScheduler ownScheduler = scheduler == null ? new ExecutorScheduler("election-" + group) : null;
            ExecutorScheduler ownEvents = eventExecutor == null ? new ExecutorScheduler("events-" + group) : null;
            Runnable afterClose = () -> {
                if (ownEvents != null) {
                    // Let already-queued events reach listeners before the thread stops.
                    ownEvents.execute(() -> ownEvents.close(java.time.Duration.ZERO));
                }
                if (ownScheduler != null) {
                    ownScheduler.execute(() -> ownScheduler.close(java.time.Duration.ZERO));
                }
            };
            StoreElection election = new LeaseElection(store, group, self, config, clock,
                    ownScheduler != null ? ownScheduler : scheduler,
                    random != null ? random : new Random(new SecureRandom().nextLong()),
                    ownEvents != null ? ownEvents::execute : eventExecutor,
                    metrics, afterClose);
            if (recordEvents) {
                ClusterEventRecorder.attach(election, store.events());
            }
            return election;
        }
    }
}

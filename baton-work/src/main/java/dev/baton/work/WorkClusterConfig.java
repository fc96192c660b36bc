package dev.baton.work;

import dev.baton.work.plan.PlannerConfig;
import dev.baton.work.plan.Worker;
import dev.baton.work.worker.WorkerConnectionConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * A work cluster's settings, immutable; start from {@link #defaults()} (seed 001's timings) or {@link #fast()} (tests
 * and demos) and vary with {@link #toBuilder()}. {@link Builder#build()} validates and names the first bad field.
 *
 * <p>Every field, with its default:
 * <ul>
 *   <li>{@code reconcileInterval} (30 s, the seed's {@code REBALANCE_INTERVAL}): the leader reloads the desired state
 *       and reconciles at least this often.</li>
 *   <li>{@code takeoverGrace} (5 s): a new leader waits up to this long for every worker's first state report before
 *       its first round, so it adopts what the workers run instead of subscribing it again.</li>
 *   <li>{@code restartGrace} (0: off): a worker that goes away keeps its items this long (none move, none is
 *       subscribed again if it comes back still running them, and no new item goes to it meanwhile), so a restart or
 *       a short network cut moves nothing; after it, its items move. Not applied to a worker being drained.</li>
 *   <li>{@code confirmTimeout} (10 s): a subscribe not confirmed by the worker's reports after this long is sent
 *       again (with backoff); also the least time between two unsubscribes of one stray item on one worker.</li>
 *   <li>{@code retryInitial} (1 s) and {@code retryMax} (60 s): per-item exponential backoff after a failure (hook,
 *       store write, no confirmation): 1 s, 2 s, 4 s, ... up to 60 s.</li>
 *   <li>{@code commandsPerSecond} (100) and {@code commandBurst} (100): per-worker rate limit on subscribe and
 *       unsubscribe commands.</li>
 *   <li>{@code workerCapacity} ({@link Worker#UNLIMITED}): the most items (count mode) or total weight (weighted
 *       mode) one worker may hold.</li>
 *   <li>{@code planner} ({@link PlannerConfig#defaults()}: count mode, the seed's DRS weights).</li>
 *   <li>{@code connection} ({@link WorkerConnectionConfig#defaults()}: reconnect every 10 s + jitter, offline after
 *       10 s without a state report).</li>
 *   <li>{@code connectionStateInterval} (2 s, the seed's {@code STATE_UPDATE_INTERVAL}): the most often a worker's
 *       {@code worker:connections} entry is rewritten for state reports alone.</li>
 *   <li>{@code requestTimeout} (10 s) and {@code requestRetryInterval} (1 s): a request a process sends the leader
 *       (subscribe, unsubscribe, setSessionId, listener card) is sent again every retry interval until answered, and
 *       fails after the timeout.</li>
 *   <li>{@code listenerRefreshInterval} (30 s): every process re-announces its listener card this often (and on every
 *       change and every new leader).</li>
 *   <li>{@code membershipRefreshInterval} (5 s): the leader re-reads the process registry this often (and on every
 *       member event) to rebalance {@code worker:assignments}.</li>
 *   <li>{@code resendAfter} (1 s): a routed result not acknowledged after this long is published again.</li>
 *   <li>{@code maxUnackedPerProcess} (10,000): unacknowledged results kept per process; the oldest beyond are
 *       dropped and counted.</li>
 *   <li>{@code maxResultsPerMessage} (64): results for one process that the leader read in one burst are published
 *       together, up to this many in one message; 1 publishes each result alone, in the seed's {@code detection}
 *       form, which processes of versions before batches need.</li>
 *   <li>{@code maxQueuedMessages} (1,024): on the leader, worker messages read from all workers' sockets and not
 *       yet handled, plus results being published or handed to this process's listeners, at most; while the bound
 *       is reached no worker socket is read (each worker's own bound, and its message budget, are in
 *       {@code connection}: {@link WorkerConnectionConfig}).</li>
 *   <li>{@code ackDelay} (20 ms) and {@code ackEvery} (64): a process acknowledges a stream after this many results
 *       or this long after the first unacknowledged one.</li>
 *   <li>{@code drainTimeout} (5 s): a leader that lost its leadership keeps re-sending results it already routed for
 *       at most this long.</li>
 *   <li>{@code stopTimeout} (2 s): on leadership lost, how long the election's listener waits for the leader's work
 *       (connections closed) to stop, when the cluster runs its own scheduler.</li>
 *   <li>{@code badMessageLogInterval} (10 s): at most one WARN line per interval about garbage on a channel.</li>
 *   <li>{@code layout} ({@link StoreLayout#defaults()}): map and channel names.</li>
 * </ul>
 */
public final class WorkClusterConfig {

    private final Duration reconcileInterval;
    private final Duration takeoverGrace;
    private final Duration restartGrace;
    private final Duration confirmTimeout;
    private final Duration retryInitial;
    private final Duration retryMax;
    private final double commandsPerSecond;
    private final int commandBurst;
    private final long workerCapacity;
    private final PlannerConfig planner;
    private final WorkerConnectionConfig connection;
    private final Duration connectionStateInterval;
    private final Duration requestTimeout;
    private final Duration requestRetryInterval;
    private final Duration listenerRefreshInterval;
    private final Duration membershipRefreshInterval;
    private final Duration resendAfter;
    private final int maxUnackedPerProcess;
    private final int maxResultsPerMessage;
    private final int maxQueuedMessages;
    private final Duration ackDelay;
    private final int ackEvery;
    private final Duration drainTimeout;
    private final Duration stopTimeout;
    private final Duration badMessageLogInterval;
    private final StoreLayout layout;

    private WorkClusterConfig(Builder b) {
        this.reconcileInterval = b.reconcileInterval;
        this.takeoverGrace = b.takeoverGrace;
        this.restartGrace = b.restartGrace;
        this.confirmTimeout = b.confirmTimeout;
        this.retryInitial = b.retryInitial;
        this.retryMax = b.retryMax;
        this.commandsPerSecond = b.commandsPerSecond;
        this.commandBurst = b.commandBurst;
        this.workerCapacity = b.workerCapacity;
        this.planner = b.planner;
        this.connection = b.connection;
        this.connectionStateInterval = b.connectionStateInterval;
        this.requestTimeout = b.requestTimeout;
        this.requestRetryInterval = b.requestRetryInterval;
        this.listenerRefreshInterval = b.listenerRefreshInterval;
        this.membershipRefreshInterval = b.membershipRefreshInterval;
        this.resendAfter = b.resendAfter;
        this.maxUnackedPerProcess = b.maxUnackedPerProcess;
        this.maxResultsPerMessage = b.maxResultsPerMessage;
        this.maxQueuedMessages = b.maxQueuedMessages;
        this.ackDelay = b.ackDelay;
        this.ackEvery = b.ackEvery;
        this.drainTimeout = b.drainTimeout;
        this.stopTimeout = b.stopTimeout;
        this.badMessageLogInterval = b.badMessageLogInterval;
        this.layout = b.layout;
    }

    /** Seed 001's timings. */
    public static WorkClusterConfig defaults() {
        return builder().build();
    }

    /**
     * For tests and demos: reconcile every 5 s, takeover grace 1 s, confirm timeout 3 s, retries from 200 ms to 5 s,
     * reconnect after 1 s (+ up to 200 ms), offline after 3 s without a report, requests retried every 250 ms for
     * 5 s, listener cards every 5 s, registry every 1 s, resend after 500 ms.
     */
    public static WorkClusterConfig fast() {
        return builder().reconcileInterval(Duration.ofSeconds(5)).takeoverGrace(Duration.ofSeconds(1))
                .confirmTimeout(Duration.ofSeconds(3)).retryInitial(Duration.ofMillis(200))
                .retryMax(Duration.ofSeconds(5))
                .connection(WorkerConnectionConfig.builder().reconnectDelay(Duration.ofSeconds(1))
                        .reconnectJitter(Duration.ofMillis(200)).reportTimeout(Duration.ofSeconds(3)).build())
                .requestTimeout(Duration.ofSeconds(5)).requestRetryInterval(Duration.ofMillis(250))
                .listenerRefreshInterval(Duration.ofSeconds(5)).membershipRefreshInterval(Duration.ofSeconds(1))
                .resendAfter(Duration.ofMillis(500)).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this configuration's values. */
    public Builder toBuilder() {
        return new Builder().reconcileInterval(reconcileInterval).takeoverGrace(takeoverGrace)
                .restartGrace(restartGrace)
                .confirmTimeout(confirmTimeout).retryInitial(retryInitial).retryMax(retryMax)
                .commandsPerSecond(commandsPerSecond).commandBurst(commandBurst).workerCapacity(workerCapacity)
                .planner(planner).connection(connection).connectionStateInterval(connectionStateInterval)
                .requestTimeout(requestTimeout).requestRetryInterval(requestRetryInterval)
                .listenerRefreshInterval(listenerRefreshInterval).membershipRefreshInterval(membershipRefreshInterval)
                .resendAfter(resendAfter).maxUnackedPerProcess(maxUnackedPerProcess)
                .maxResultsPerMessage(maxResultsPerMessage)
                .maxQueuedMessages(maxQueuedMessages).ackDelay(ackDelay)
                .ackEvery(ackEvery).drainTimeout(drainTimeout).stopTimeout(stopTimeout)
                .badMessageLogInterval(badMessageLogInterval).layout(layout);
    }

    public Duration reconcileInterval() {
        return reconcileInterval;
    }

    public Duration takeoverGrace() {
        return takeoverGrace;
    }

    /** How long a worker that went away keeps its items; zero: its items move at once. */
    public Duration restartGrace() {
        return restartGrace;
    }

    public Duration confirmTimeout() {
        return confirmTimeout;
    }

    public Duration retryInitial() {
        return retryInitial;
    }

    public Duration retryMax() {
        return retryMax;
    }

    public double commandsPerSecond() {
        return commandsPerSecond;
    }

    public int commandBurst() {
        return commandBurst;
    }

    public long workerCapacity() {
        return workerCapacity;
    }

    public PlannerConfig planner() {
        return planner;
    }

    public WorkerConnectionConfig connection() {
        return connection;
    }

    public Duration connectionStateInterval() {
        return connectionStateInterval;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    public Duration requestRetryInterval() {
        return requestRetryInterval;
    }

    public Duration listenerRefreshInterval() {
        return listenerRefreshInterval;
    }

    public Duration membershipRefreshInterval() {
        return membershipRefreshInterval;
    }

    public Duration resendAfter() {
        return resendAfter;
    }

    public int maxUnackedPerProcess() {
        return maxUnackedPerProcess;
    }

    /** Results for one process published in one message at most (1: each alone). */
    public int maxResultsPerMessage() {
        return maxResultsPerMessage;
    }

    /** Worker messages and results in flight on the leader, in total, before it stops reading worker sockets. */
    public int maxQueuedMessages() {
        return maxQueuedMessages;
    }

    public Duration ackDelay() {
        return ackDelay;
    }

    public int ackEvery() {
        return ackEvery;
    }

    public Duration drainTimeout() {
        return drainTimeout;
    }

    public Duration stopTimeout() {
        return stopTimeout;
    }

    public Duration badMessageLogInterval() {
        return badMessageLogInterval;
    }

    public StoreLayout layout() {
        return layout;
    }

    @Override
    public String toString() {
        return "WorkClusterConfig[reconcileInterval=" + reconcileInterval + ", takeoverGrace=" + takeoverGrace
                + ", restartGrace=" + restartGrace
                + ", confirmTimeout=" + confirmTimeout + ", retry=" + retryInitial + ".." + retryMax
                + ", commandsPerSecond=" + commandsPerSecond + ", commandBurst=" + commandBurst
                + ", workerCapacity=" + workerCapacity + ", planner=" + planner + ", layout=" + layout + "]";
    }

    /** Builds a {@link WorkClusterConfig}. */
    public static final class Builder {
        private Duration reconcileInterval = Duration.ofSeconds(30);
        private Duration takeoverGrace = Duration.ofSeconds(5);
        private Duration restartGrace = Duration.ZERO;
        private Duration confirmTimeout = Duration.ofSeconds(10);
        private Duration retryInitial = Duration.ofSeconds(1);
        private Duration retryMax = Duration.ofSeconds(60);
        private double commandsPerSecond = 100;
        private int commandBurst = 100;
        private long workerCapacity = Worker.UNLIMITED;
        private PlannerConfig planner = PlannerConfig.defaults();
        private WorkerConnectionConfig connection = WorkerConnectionConfig.defaults();
        private Duration connectionStateInterval = Duration.ofSeconds(2);
        private Duration requestTimeout = Duration.ofSeconds(10);
        private Duration requestRetryInterval = Duration.ofSeconds(1);
        private Duration listenerRefreshInterval = Duration.ofSeconds(30);
        private Duration membershipRefreshInterval = Duration.ofSeconds(5);
        private Duration resendAfter = Duration.ofSeconds(1);
        private int maxUnackedPerProcess = 10_000;
        private int maxResultsPerMessage = 64;
        private int maxQueuedMessages = 1_024;
        private Duration ackDelay = Duration.ofMillis(20);
        private int ackEvery = 64;
        private Duration drainTimeout = Duration.ofSeconds(5);
        private Duration stopTimeout = Duration.ofSeconds(2);
        private Duration badMessageLogInterval = Duration.ofSeconds(10);
        private StoreLayout layout = StoreLayout.defaults();

        private Builder() {
        }

        public Builder reconcileInterval(Duration value) {
            this.reconcileInterval = value;
            return this;
        }

        public Builder takeoverGrace(Duration value) {
            this.takeoverGrace = value;
            return this;
        }

        /** How long a worker that went away keeps its items (default zero: they move at once); see the class comment. */
        public Builder restartGrace(Duration value) {
            this.restartGrace = value;
            return this;
        }

        public Builder confirmTimeout(Duration value) {
            this.confirmTimeout = value;
            return this;
        }

        public Builder retryInitial(Duration value) {
            this.retryInitial = value;
            return this;
        }

        public Builder retryMax(Duration value) {
            this.retryMax = value;
            return this;
        }

        public Builder commandsPerSecond(double value) {
            this.commandsPerSecond = value;
            return this;
        }

        public Builder commandBurst(int value) {
            this.commandBurst = value;
            return this;
        }

        public Builder workerCapacity(long value) {
            this.workerCapacity = value;
            return this;
        }

        public Builder planner(PlannerConfig value) {
            this.planner = value;
            return this;
        }

        public Builder connection(WorkerConnectionConfig value) {
            this.connection = value;
            return this;
        }

        public Builder connectionStateInterval(Duration value) {
            this.connectionStateInterval = value;
            return this;
        }

        public Builder requestTimeout(Duration value) {
            this.requestTimeout = value;
            return this;
        }

        public Builder requestRetryInterval(Duration value) {
            this.requestRetryInterval = value;
            return this;
        }

        public Builder listenerRefreshInterval(Duration value) {
            this.listenerRefreshInterval = value;
            return this;
        }

        public Builder membershipRefreshInterval(Duration value) {
            this.membershipRefreshInterval = value;
            return this;
        }

        public Builder resendAfter(Duration value) {
            this.resendAfter = value;
            return this;
        }

        public Builder maxQueuedMessages(int value) {
            this.maxQueuedMessages = value;
            return this;
        }

        public Builder maxUnackedPerProcess(int value) {
            this.maxUnackedPerProcess = value;
            return this;
        }

        /** Results for one process in one bus message at most; 1 sends each alone (for older processes). */
        public Builder maxResultsPerMessage(int value) {
            this.maxResultsPerMessage = value;
            return this;
        }

        public Builder ackDelay(Duration value) {
            this.ackDelay = value;
            return this;
        }

        public Builder ackEvery(int value) {
            this.ackEvery = value;
            return this;
        }

        public Builder drainTimeout(Duration value) {
            this.drainTimeout = value;
            return this;
        }

        public Builder stopTimeout(Duration value) {
            this.stopTimeout = value;
            return this;
        }

        public Builder badMessageLogInterval(Duration value) {
            this.badMessageLogInterval = value;
            return this;
        }

        public Builder layout(StoreLayout value) {
            this.layout = value;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the first field that is missing or out of range
         */
        public WorkClusterConfig build() {
            positive("reconcileInterval", reconcileInterval);
            notNegative("takeoverGrace", takeoverGrace);
            notNegative("restartGrace", restartGrace);
            positive("confirmTimeout", confirmTimeout);
            positive("retryInitial", retryInitial);
            positive("retryMax", retryMax);
            if (retryMax.compareTo(retryInitial) < 0) {
                throw new IllegalArgumentException("retryMax (" + retryMax + ") must be at least retryInitial ("
                        + retryInitial + ")");
            }
            if (!(commandsPerSecond > 0) || Double.isInfinite(commandsPerSecond)) {
                throw new IllegalArgumentException("commandsPerSecond must be positive and finite, was "
                        + commandsPerSecond);
            }
            atLeast("commandBurst", commandBurst, 1);
            if (workerCapacity < 1) {
                throw new IllegalArgumentException("workerCapacity must be at least 1, was " + workerCapacity);
            }
            Objects.requireNonNull(planner, "planner must be set");
            Objects.requireNonNull(connection, "connection must be set");
            notNegative("connectionStateInterval", connectionStateInterval);
            positive("requestTimeout", requestTimeout);
            positive("requestRetryInterval", requestRetryInterval);
            positive("listenerRefreshInterval", listenerRefreshInterval);
            positive("membershipRefreshInterval", membershipRefreshInterval);
            positive("resendAfter", resendAfter);
            atLeast("maxUnackedPerProcess", maxUnackedPerProcess, 1);
            atLeast("maxResultsPerMessage", maxResultsPerMessage, 1);
            atLeast("maxQueuedMessages", maxQueuedMessages, 1);
            positive("ackDelay", ackDelay);
            atLeast("ackEvery", ackEvery, 1);
            if (ackDelay.compareTo(resendAfter) >= 0) {
                throw new IllegalArgumentException("ackDelay (" + ackDelay + ") must be shorter than resendAfter ("
                        + resendAfter + "), or every result would be sent twice");
            }
            notNegative("drainTimeout", drainTimeout);
            notNegative("stopTimeout", stopTimeout);
            notNegative("badMessageLogInterval", badMessageLogInterval);
            Objects.requireNonNull(layout, "layout must be set");
            return new WorkClusterConfig(this);
        }

        private static void positive(String field, Duration value) {
            Objects.requireNonNull(value, field + " must be set");
            if (value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(field + " must be positive, was " + value);
            }
        }

        private static void notNegative(String field, Duration value) {
            Objects.requireNonNull(value, field + " must be set");
            if (value.isNegative()) {
                throw new IllegalArgumentException(field + " must not be negative, was " + value);
            }
        }

        private static void atLeast(String field, long value, long min) {
            if (value < min) {
                throw new IllegalArgumentException(field + " must be at least " + min + ", was " + value);
            }
        }
    }
}

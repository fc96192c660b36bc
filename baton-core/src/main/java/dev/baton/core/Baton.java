package dev.baton.core;

import dev.baton.core.eventlog.ClusterEventRecorder;
import dev.baton.core.internal.PooledScheduler;
import dev.baton.core.internal.StoreConnectors;
import dev.baton.core.lease.LeaseElection;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import java.security.SecureRandom;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
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
 *
 * <p>An election built here also closes itself when the JVM is stopped (Ctrl-C, SIGTERM), so that a leader releases
 * at once; see {@link ElectionBuilder#releaseOnShutdown(boolean)}.
 */
public final class Baton {

    /** The node an election stands for when built without one: one per store object, so they share its session. */
    private static final Map<CoordinationStore, NodeInfo> DEFAULT_NODES = Collections.synchronizedMap(
            new WeakHashMap<>());

    private Baton() {
    }

    /**
     * Connects to the store a backend URI names: {@code memory} (an in-memory store, this process only), or any form
     * a backend module on the class path accepts through its {@link dev.baton.core.spi.StoreConnector}:
     * {@code redis://}, {@code rediss://}, {@code redis-sentinel://} and {@code redis-cluster://} with
     * {@code baton-redis}, {@code postgresql://} with {@code baton-postgres}, {@code etcd://} with {@code baton-etcd}.
     * The caller closes the store (after the elections on it).
     *
     * @throws IllegalArgumentException if the URI is malformed, of an unknown form (the message lists the forms
     *                                  accepted) or of a backend whose module is not on the class path (the message
     *                                  names it)
     * @throws dev.baton.core.store.StoreException if the store cannot be reached
     */
    public static CoordinationStore connect(String uri) {
        Objects.requireNonNull(uri, "uri");
        if (uri.isBlank()) {
            throw new IllegalArgumentException("the backend URI is empty (expected "
                    + String.join(", ", StoreConnectors.forms()) + ")");
        }
        if (uri.strip().toLowerCase(Locale.ROOT).equals("memory")) {
            return new InMemoryStore();
        }
        return StoreConnectors.connect(uri);
    }

    /**
     * Whether {@link #connect(String)} knows the form of {@code uri}: {@code memory}, or a scheme a backend module on
     * the class path opens. Opens nothing.
     */
    public static boolean connects(String uri) {
        return uri != null && (uri.strip().equalsIgnoreCase("memory") || StoreConnectors.find(uri).isPresent());
    }

    /** Starts building a lease election on {@code store}. */
    /**
     * Closes many elections together: every one is asked to close at once, so their leaders release their groups in
     * parallel, then this waits for each (each at most about its lease TTL, as {@link Election#close()}). A process
     * holding many groups stops in about the time one release takes, not one after the other.
     */
    public static void closeAll(Collection<? extends Election> elections) {
        List<? extends Election> all = List.copyOf(elections);
        all.forEach(Election::closeAsync);
        all.forEach(Election::close);
    }

    /** {@link #closeAll(Collection)} without waiting: completes when every election has closed. */
    public static CompletableFuture<Void> closeAllAsync(Collection<? extends Election> elections) {
        return CompletableFuture.allOf(elections.stream().map(Election::closeAsync)
                .toArray(CompletableFuture[]::new));
    }

    private static NodeInfo defaultNode(CoordinationStore store) {
        return DEFAULT_NODES.computeIfAbsent(store, s -> NodeInfo.create("baton"));
    }

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
        private Boolean releaseOnShutdown;
        private boolean sessions = true;

        private ElectionBuilder(CoordinationStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /** The group to elect a leader for, e.g. {@code orders-scheduler}. Required. */
        public ElectionBuilder group(String name) {
            this.group = name;
            return this;
        }

        /**
         * This process as the registry should show it. Default: one node per store object in this JVM (a random
         * UUID id, identifier {@code baton}), so that every election built on the same store shares its session.
         */
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

        /**
         * Scheduler for the state machine. Default: the election's own serial queue on daemon threads shared by the
         * JVM's elections, so building one starts no thread; its tasks never run two at a time.
         */
        public ElectionBuilder scheduler(Scheduler value) {
            this.scheduler = value;
            return this;
        }

        /**
         * Default executor for listeners. Default: the election's own serial queue on the shared threads, separate
         * from the state machine's, so a slow listener delays only the election's later events, never its renewals.
         */
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

        /**
         * Whether the election closes itself when the JVM shuts down (SIGTERM, Ctrl-C, {@code System.exit}):
         * try-with-resources and {@code finally} blocks do not run on a signal, so without this a leader that is
         * stopped leaves its group leaderless until its lease expires (30 s with the default timings). Default: true,
         * unless a {@link #scheduler(Scheduler)} is given (a caller-driven scheduler, such as a test's, cannot be
         * relied on to run during shutdown).
         *
         * <p>A JVM shutdown hook, registered by {@code start()} and removed once the election has closed, calls
         * {@link Election#close()}, which for a leader: stops counting itself leader ({@code isLeader()} false, its
         * {@link Leadership#isValid()} false); delivers {@code LeadershipLost} (reason {@code RELEASED}) to every
         * listener; releases the lease once every listener has returned from that event, or at the leadership's
         * local deadline if one has not; then removes the registry entry. JVM exit waits for that: at most about the
         * lease TTL plus the store timeout, when a listener does not return.
         *
         * <p>Shutdown hooks run concurrently and in no particular order: this one does not wait for the
         * application's own hooks, nor they for it. Leader-only work stopped from the {@code LeadershipLost}
         * listener stops before the release. An application whose other hooks must come first (they stop
         * leader-only work, or close a pool or executor the listener needs) passes {@code false} and calls
         * {@code close()} from its own hook, in the order it needs.
         */
        public ElectionBuilder releaseOnShutdown(boolean value) {
            this.releaseOnShutdown = value;
            return this;
        }

        /**
         * Whether the election's lease is bound to this process's session on the store, when the store offers
         * sessions ({@link CoordinationStore#sessions()}); default true. Every election of the same node on the same
         * store object (with the same timings) then shares one session, kept alive by one store call per renew
         * interval however many groups it holds, and a group's leadership lasts while the session does: when the
         * session ends, or cannot be kept alive before its local deadline, every leadership bound to it ends at once.
         * With {@code false}, or on a store without sessions, each election keeps a lease and a registry entry with
         * TTLs of their own, renewed per group (the layout the original Redis master election reads).
         */
        public ElectionBuilder sessions(boolean value) {
            this.sessions = value;
            return this;
        }

        /** Builds the election, not started; it offers the store's fenced registers and process registry. */
        public StoreElection build() {
            if (group == null || group.isBlank()) {
                throw new IllegalArgumentException("group must be set");
            }
            boolean sessionBound = sessions && store.sessions().isPresent();
            NodeInfo self = node != null ? node
                    : sessionBound ? defaultNode(store) : NodeInfo.create("baton");
            PooledScheduler ownScheduler = scheduler == null ? new PooledScheduler() : null;
            PooledScheduler ownEvents = eventExecutor == null ? PooledScheduler.forListeners() : null;
            Runnable afterClose = () -> {
                if (ownEvents != null) {
                    // Let already-queued events reach listeners before the queue closes.
                    ownEvents.execute(ownEvents::close);
                }
                if (ownScheduler != null) {
                    ownScheduler.execute(ownScheduler::close);
                }
            };
            LeaseElection election = new LeaseElection(store, group, self, config, clock,
                    ownScheduler != null ? ownScheduler : scheduler,
                    random != null ? random : new Random(new SecureRandom().nextLong()),
                    ownEvents != null ? ownEvents : eventExecutor,
                    metrics, afterClose, sessionBound);
            if (releaseOnShutdown != null ? releaseOnShutdown : scheduler == null) {
                election.releaseOnShutdown();
            }
            if (recordEvents) {
                ClusterEventRecorder.attach(election, store.events());
            }
            return election;
        }
    }
}

package dev.baton.work;

import dev.baton.core.Election;
import dev.baton.core.Membership;
import dev.baton.core.Registration;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.FencedMapStore;
import dev.baton.core.store.MessageBus;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.work.internal.cluster.ClusterProcess;
import dev.baton.work.internal.cluster.ClusterThreads;
import dev.baton.work.internal.reconcile.ClusterStore;
import dev.baton.work.internal.reconcile.LeaderThreads;
import dev.baton.work.internal.reconcile.UserHooks;
import dev.baton.work.internal.reconcile.WorkerFleet;
import dev.baton.work.internal.route.BusCodec;
import dev.baton.work.internal.route.BusMessage;
import dev.baton.work.internal.worker.JdkWebSocketTransport;
import dev.baton.work.source.DesiredStateSource;
import dev.baton.work.worker.WorkerTransport;
import java.net.URI;
import java.net.URISyntaxException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A cluster of workers shared by a group of processes: seed 001's {@code DetectorCluster}, the same API on the leader
 * and on every other process.
 *
 * <p>The process that leads the election (seed: the master) holds a WebSocket to every worker, regenerates the
 * desired items from the store and the {@link DesiredStateSource} on every {@code regenerate_subscriptions} notice
 * and every 30 s, plans where each item runs, subscribes and unsubscribes, and records the actual state in the store
 * under its term, so that a deposed leader's writes are refused and a new leader resumes from the store and the
 * workers' reports without subscribing anything twice. Results go from the leader to the processes that want them
 * over the store's pub/sub: per-item listeners get their item's results on the process that registered them;
 * global listeners get each result on exactly one process, chosen by the worker -> process assignment. Delivery is
 * at least once.
 *
 * <pre>{@code
 * WorkCluster cluster = WorkCluster.builder(election, store)
 *         .workers(List.of("ws://10.0.0.5:8000", "ws://10.0.0.6:8000"))   // the seed's DETECTOR_WORKERS
 *         .assignmentHook((item, worker) -> item.withModelUrl(presign(item.modelId())))
 *         .build();
 * cluster.addListener(event -> log.info("{}", event.name()));
 * cluster.addGlobalDetectionListener(result -> analytics.record(result));
 * cluster.start();
 * election.start();
 * cluster.subscribe(WorkItem.builder("display-1;camera-7").rtspUrl("rtsp://10.0.1.7/stream")
 *         .model(42, "vehicle-detection-v2").build()).join();
 * }</pre>
 *
 * <p>Life cycle: built, {@link #start() started} once (add listeners before, so none misses an event), then
 * {@link #close() closed} once. Closing stops this process's part (a leader closes its worker connections); it does
 * not close the election or the store, which the caller owns. All methods are thread-safe.
 *
 * <p>Threads: the cluster's state machine runs on one scheduler (its own thread unless one is passed in); listeners
 * run on the listener executor (its own thread unless one is passed in), one call at a time; the desired state
 * source, the assignment hook and the session handler run on the source executor.
 */
public final class WorkCluster implements AutoCloseable {

    /** The life cycle. */
    public enum State { NEW, STARTED, CLOSED }

    private final MessageBus bus;
    private final String group;
    private final String processId;
    private final StoreLayout layout;
    private final List<String> workerUrls;
    private final Clock clock;
    private final BusCodec codec = new BusCodec();
    private final ClusterThreads threads;
    private final ClusterProcess process;

    private volatile State state = State.NEW;

    private WorkCluster(Builder b) {
        this.bus = b.bus;
        Membership membership = b.membership != null ? b.membership : b.election.membership();
        this.group = b.election.group();
        this.processId = b.election.nodeId();
        this.layout = b.config.layout();
        this.workerUrls = List.copyOf(b.workers);
        this.clock = b.clock;
        Random random = b.random != null ? b.random : new Random(new SecureRandom().nextLong());
        this.threads = ClusterThreads.of(group, b.scheduler, b.listenerExecutor, b.sourceExecutor);
        WorkerTransport transport = b.transport != null ? b.transport
                : new JdkWebSocketTransport(b.config.connection().maxMessageBytes());
        long incarnation = random.nextLong();
        this.process = new ClusterProcess(b.election, new ClusterStore(b.maps, b.bus, group, processId, codec), membership,
                b.config, threads, clock, new LeaderThreads(threads.scheduler(), clock, random,
                threads.sourceExecutor()), new WorkerFleet(workerUrls, transport),
                new UserHooks(b.source, b.hook, b.sessions), incarnation, () -> state == State.STARTED);
    }

    /**
     * Starts building a work cluster for {@code election}'s group on {@code store} (the store the election runs on,
     * or any store all the group's processes share).
     */
    public static Builder builder(Election election, CoordinationStore store) {
        Objects.requireNonNull(election, "election");
        Objects.requireNonNull(store, "store");
        return new Builder(election, store.maps(), store.bus());
    }

    /**
     * Starts building a work cluster for {@code election}'s group on the fenced maps {@code maps} and the message bus
     * {@code bus}, when they are not one {@link CoordinationStore}'s: for example the maps a serverless group
     * replicates among its members ({@code dev.baton.peer.replica.ReplicatedWorkStore}). Every process of the group
     * must see the same maps and bus; the maps must refuse writes under any term but the group's newest.
     */
    public static Builder builder(Election election, FencedMapStore maps, MessageBus bus) {
        return new Builder(election, maps, bus);
    }

    // ---------------------------------------------------------------- life cycle

    /**
     * Starts this process's part: listens on its channel and to the election, announces its listeners, and starts
     * leading at once if the election already leads. Runs once; later calls do nothing.
     */
    public void start() {
        synchronized (this) {
            if (state != State.NEW) {
                return;
            }
            state = State.STARTED;
        }
        process.start();
    }

    /** The life cycle state. */
    public State state() {
        return state;
    }

    /**
     * Stops this process's part: a leader stops leading (closes the worker connections), requests still waiting
     * fail, listeners get nothing more. Does not close the election or the store. Idempotent; blocks up to about
     * a second while the cluster's own threads finish.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
        }
        process.close();
        threads.closeOwned();
    }

    // ---------------------------------------------------------------- the seed's DetectorCluster API

    /**
     * Subscribes an item (the seed's {@code subscribeToCamera}): stores it in the desired items, from any process;
     * the leader assigns it to a worker. Idempotent: subscribing an item again replaces it (a changed item is sent to
     * its worker again only when it moves). Stored items survive restarts of every process.
     *
     * @return completes with {@code true} once the leader has stored the item, or fails with a
     *     {@link WorkClusterException} if no leader answered within the request timeout
     * @throws InvalidWorkItemException (at once) if the id is not the seed's {@code displayId;cameraId}
     * @throws IllegalStateException    if the cluster is not started or is closed
     */
    public CompletableFuture<Boolean> subscribe(WorkItem item) {
        Objects.requireNonNull(item, "item");
        SubscriptionIdentifier.parse(item.subscriptionIdentifier());
        requireStarted();
        WorkItem stored = item.createdAt() == null ? item.withCreatedAt(clock.instant().toString()) : item;
        String id = item.subscriptionIdentifier();
        return process.request(requestId -> new BusMessage.SubscribeItem(group, requestId, processId, stored),
                "subscribe '" + id + "'").thenApply(v -> true);
    }

    /**
     * Subscribes an item and adds a per-item listener for its results on this process (the seed's
     * {@code subscribeToCamera} with its {@code callback}).
     */
    public CompletableFuture<Boolean> subscribe(WorkItem item, DetectionListener callback) {
        Objects.requireNonNull(callback, "callback");
        SubscriptionIdentifier.parse(Objects.requireNonNull(item, "item").subscriptionIdentifier());
        requireStarted();
        addDetectionListener(item.subscriptionIdentifier(), callback);
        return subscribe(item);
    }

    /**
     * Unsubscribes an item (the seed's {@code unsubscribeFromCamera}): removes this process's listeners for it at
     * once and the item from the stored desired items; the leader stops it on its worker. Idempotent: unsubscribing
     * an unknown item succeeds. An item that comes from the {@link DesiredStateSource} stays desired until the source
     * drops it.
     *
     * @return completes with {@code true} once the leader has removed it
     */
    public CompletableFuture<Boolean> unsubscribe(String subscriptionIdentifier) {
        WorkItem.checkId(subscriptionIdentifier);
        requireStarted();
        process.removeListeners(Set.of(subscriptionIdentifier));
        return process.request(requestId -> new BusMessage.UnsubscribeItem(group, requestId, processId,
                subscriptionIdentifier), "unsubscribe '" + subscriptionIdentifier + "'").thenApply(v -> true);
    }

    /**
     * Unsubscribes every item of a camera, {@code *;cameraId} (the seed's {@code unsubscribeFromAllWithCameraID}),
     * and removes this process's listeners for them.
     *
     * @return completes with the number of stored items removed
     */
    public CompletableFuture<Integer> unsubscribeAllWithCameraId(String cameraId) {
        Objects.requireNonNull(cameraId, "cameraId");
        if (cameraId.isBlank() || cameraId.indexOf(';') >= 0) {
            throw new InvalidWorkItemException("cameraId", "cameraId must be non-blank and contain no ';', was '"
                    + cameraId + "'");
        }
        requireStarted();
        Set<String> local = new HashSet<>();
        for (String item : process.listenedItems()) {
            if (SubscriptionIdentifier.isOfCamera(item, cameraId)) {
                local.add(item);
            }
        }
        process.removeListeners(local);
        return process.request(requestId -> new BusMessage.UnsubscribeCamera(group, requestId, processId, cameraId),
                "unsubscribe camera '" + cameraId + "'").thenApply(Long::intValue);
    }

    /**
     * Adds a listener for one item's results on this process (the seed's {@code addDetectionListener}): it gets
     * them whoever leads, at least once, from the time {@link ListenerRegistration#routed()} completes.
     */
    public ListenerRegistration addDetectionListener(String subscriptionIdentifier, DetectionListener listener) {
        WorkItem.checkId(subscriptionIdentifier);
        Objects.requireNonNull(listener, "listener");
        return process.addDetectionListener(subscriptionIdentifier, listener);
    }

    /**
     * Adds a listener for every result (the seed's {@code addGlobalDetectionListener}). Each result reaches the
     * global listeners of exactly one process: the one assigned the result's worker in {@code worker:assignments},
     * which the leader balances over the processes that have global listeners.
     */
    public ListenerRegistration addGlobalDetectionListener(DetectionListener listener) {
        Objects.requireNonNull(listener, "listener");
        return process.addGlobalDetectionListener(listener);
    }

    /**
     * Associates a session with an item's display on the worker running it (the seed's {@code setSessionId}); not
     * restored after a worker reconnects, as in the seed.
     *
     * @param sessionId the session, or {@code null} to clear it
     * @return completes with {@code true} if the item runs on an online worker and the command was sent, else
     *     {@code false}
     */
    public CompletableFuture<Boolean> setSessionId(String subscriptionIdentifier, Long sessionId) {
        WorkItem.checkId(subscriptionIdentifier);
        requireStarted();
        return process.request(requestId -> new BusMessage.SetSession(group, requestId, processId,
                subscriptionIdentifier, sessionId), "setSessionId '" + subscriptionIdentifier + "'")
                .thenApply(v -> v == 1);
    }

    /**
     * Drains a worker before it goes away (a deploy, a host to retire): the leader gives it nothing new and moves each
     * of its items make-before-break — the item is started on its new worker and confirmed running there before it
     * is stopped on this one — so planned departures leave no gap. The drain is recorded in the store
     * ({@code worker:draining}) and lasts until {@link #undrain}, across leader changes. {@link #getState()} lists
     * draining workers. An item that has nowhere else to go keeps running where it is.
     *
     * @param workerUrl one of the cluster's worker URLs, as configured
     * @param reason    why, for the logs and the state (may be null)
     * @return completes with {@code true} once the drain is recorded, {@code false} if the URL is not one of the
     *     cluster's workers; fails if no leader answers in time
     */
    public CompletableFuture<Boolean> drain(String workerUrl, String reason) {
        Objects.requireNonNull(workerUrl, "workerUrl");
        requireStarted();
        return process.request(requestId -> new BusMessage.DrainWorker(group, requestId, processId, workerUrl, true,
                reason), "drain " + workerUrl).thenApply(v -> v == 1);
    }

    /**
     * Ends a drain: the worker may get items again (the planner balances towards it at its next round).
     *
     * @return completes with {@code true} if the worker was being drained
     */
    public CompletableFuture<Boolean> undrain(String workerUrl) {
        Objects.requireNonNull(workerUrl, "workerUrl");
        requireStarted();
        return process.request(requestId -> new BusMessage.DrainWorker(group, requestId, processId, workerUrl, false,
                null), "undrain " + workerUrl).thenApply(v -> v == 1);
    }

    /**
     * Asks the leader to reload the desired state now (the seed's {@code triggerSubscriptionUpdate}, which sends
     * {@code regenerate_subscriptions}); call it after changing what the {@link DesiredStateSource} reads, or after
     * writing items to the store outside this API. Fire and forget: completes once the notice is sent.
     */
    public CompletableFuture<Void> requestRegeneration(String reason) {
        requireStarted();
        if (process.regenerateHere(reason)) {
            return CompletableFuture.completedFuture(null);
        }
        BusMessage.Regenerate notice = new BusMessage.Regenerate(group, reason, processId, clock.instant().toString());
        return bus.publish(layout.commandsChannel(), codec.encode(notice)).thenApply(n -> null);
    }

    /**
     * The cluster as the store records it (the seed's {@code getState}): the same on every process, plus whether
     * this one leads. Fails if the store cannot be read.
     */
    public CompletableFuture<WorkClusterState> getState() {
        return process.state();
    }

    /** Adds a listener for the cluster's events; see {@link WorkClusterEvent} for which and where. */
    public Registration addListener(WorkClusterListener listener) {
        Objects.requireNonNull(listener, "listener");
        return process.addListener(listener);
    }

    /** This process's id (its election node id; the seed's {@code processId} and {@code slaveId}). */
    public String processId() {
        return processId;
    }

    /** The group (the election's). */
    public String group() {
        return group;
    }

    /** The configured worker URLs. */
    public List<String> workers() {
        return workerUrls;
    }

    /** Where the cluster keeps its state and which channels it uses. */
    public StoreLayout layout() {
        return layout;
    }

    /** Whether this process is leading the work cluster now (holds the worker connections). */
    public boolean isLeading() {
        return process.isLeading();
    }

    /**
     * Counters of this process, for metrics and tests: {@code badMessages} (garbage dropped on this process's
     * channel), {@code results} (results delivered here, duplicates excluded), {@code duplicates}; and while leading
     * {@code routed}, {@code resent}, {@code droppedUnacked}, {@code waitingAck}, {@code desired}, {@code recorded},
     * {@code inFlight}, {@code rounds}, {@code badCommands} (garbage dropped on {@code worker:master:commands}).
     * Read on the cluster's scheduler; completes there.
     */
    public CompletableFuture<Map<String, Long>> counters() {
        return process.counters();
    }

    private void requireStarted() {
        State s = state;
        if (s != State.STARTED) {
            throw new IllegalStateException(s == State.NEW ? "the work cluster is not started: call start() first"
                    : "the work cluster is closed");
        }
    }

    /**
     * Builds a {@link WorkCluster}. Required: the election and the store (in {@link WorkCluster#builder}). Everything
     * else has a default: no workers, no desired state source (only the store's items), the seed's timings, the
     * identity assignment hook, no session handler, the election's membership, the system clock, the cluster's own
     * threads and the JDK WebSocket client.
     */
    public static final class Builder {
        private final Election election;
        private final FencedMapStore maps;
        private final MessageBus bus;
        private final List<String> workers = new ArrayList<>();
        private DesiredStateSource source = DesiredStateSource.NONE;
        private WorkClusterConfig config = WorkClusterConfig.defaults();
        private AssignmentHook hook = AssignmentHook.NONE;
        private SessionPatchHandler sessions = SessionPatchHandler.NONE;
        private Membership membership;
        private Clock clock = Clock.system();
        private Scheduler scheduler;
        private Random random;
        private WorkerTransport transport;
        private Executor sourceExecutor;
        private Executor listenerExecutor;

        private Builder(Election election, FencedMapStore maps, MessageBus bus) {
            this.election = Objects.requireNonNull(election, "election");
            this.maps = Objects.requireNonNull(maps, "maps");
            this.bus = Objects.requireNonNull(bus, "bus");
        }

        /**
         * The workers' WebSocket URLs (the seed's {@code DETECTOR_WORKERS}), {@code ws://} or {@code wss://} with a
         * host; every process of the group should list the same ones.
         *
         * @throws IllegalArgumentException naming the first URL that is not one, or a URL listed twice
         */
        public Builder workers(List<String> urls) {
            urls.forEach(this::worker);
            return this;
        }

        /** One worker's WebSocket URL; see {@link #workers(List)}. */
        public Builder worker(String url) {
            Objects.requireNonNull(url, "worker url");
            try {
                URI uri = new URI(url);
                String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
                if (!scheme.equals("ws") && !scheme.equals("wss") || uri.getHost() == null) {
                    throw new IllegalArgumentException("worker URL must be ws://HOST:PORT or wss://HOST:PORT, was '"
                            + url + "'");
                }
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("worker URL '" + url + "' is not a URL: " + e.getReason(), e);
            }
            if (workers.contains(url)) {
                throw new IllegalArgumentException("worker URL '" + url + "' is listed twice");
            }
            workers.add(url);
            return this;
        }

        /** Where desired items come from besides the store; default {@link DesiredStateSource#NONE}. */
        public Builder source(DesiredStateSource value) {
            this.source = Objects.requireNonNull(value, "source");
            return this;
        }

        /** Timings and limits; default {@link WorkClusterConfig#defaults()}. */
        public Builder config(WorkClusterConfig value) {
            this.config = Objects.requireNonNull(value, "config");
            return this;
        }

        /** Resolves per-assignment fields (a fresh model URL); default {@link AssignmentHook#NONE}. */
        public Builder assignmentHook(AssignmentHook value) {
            this.hook = Objects.requireNonNull(value, "assignmentHook");
            return this;
        }

        /** Answers workers' {@code patchSession}; default {@link SessionPatchHandler#NONE} (answers failure). */
        public Builder sessionPatchHandler(SessionPatchHandler value) {
            this.sessions = Objects.requireNonNull(value, "sessionPatchHandler");
            return this;
        }

        /** The group's process registry; default the election's {@link Election#membership()}. */
        public Builder membership(Membership value) {
            this.membership = Objects.requireNonNull(value, "membership");
            return this;
        }

        /** Time source; default {@link Clock#system()}. */
        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        /**
         * The scheduler the cluster's state machine (and its worker connections) run on; default its own thread.
         * With one passed in, {@code LeadershipLost} does not wait for the connections to close.
         */
        public Builder scheduler(Scheduler value) {
            this.scheduler = Objects.requireNonNull(value, "scheduler");
            return this;
        }

        /** Source of reconnect jitter and of this process's incarnation id; default seeded from SecureRandom. */
        public Builder random(Random value) {
            this.random = Objects.requireNonNull(value, "random");
            return this;
        }

        /** How worker connections are opened; default the JDK WebSocket client. */
        public Builder transport(WorkerTransport value) {
            this.transport = Objects.requireNonNull(value, "transport");
            return this;
        }

        /** Runs the source, the assignment hook and the session handler; default 4 daemon threads. */
        public Builder sourceExecutor(Executor value) {
            this.sourceExecutor = Objects.requireNonNull(value, "sourceExecutor");
            return this;
        }

        /** Runs detection listeners and event listeners, one at a time; default its own thread. */
        public Builder listenerExecutor(Executor value) {
            this.listenerExecutor = Objects.requireNonNull(value, "listenerExecutor");
            return this;
        }

        public WorkCluster build() {
            return new WorkCluster(this);
        }
    }
}

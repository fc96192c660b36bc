package dev.baton.work.internal.reconcile;

import dev.baton.work.WorkClusterConfig;
import dev.baton.work.WorkClusterEvent;
import dev.baton.work.WorkerConnectionState;
import dev.baton.work.internal.worker.InboundLimit;
import dev.baton.work.internal.worker.WorkerCommand;
import dev.baton.work.internal.worker.WorkerConnection;
import dev.baton.work.internal.worker.WorkerConnectionListener;
import dev.baton.work.plan.BalanceMode;
import dev.baton.work.worker.WorkerEvent;
import dev.baton.work.worker.WorkerMessage;
import dev.baton.work.worker.WorkerTransport;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's connections to every worker (the seed's {@code connectToAllWorkers}), with what the reconciler needs
 * to know of each: the items its latest report lists, when the connection opened, what the connection holds (re-sent
 * after a reconnect), and a rate limit on the commands sent to it. Records each worker's connection in
 * {@code worker:connections}. Runs on the leader's scheduler, as do the connections.
 *
 * <p>Nothing reaches a worker once the role may no longer act ({@code acting}): a connection sends from tasks of its
 * own (queued commands, re-sends after a reconnect), which may run after the leadership ended and before the role's
 * stop closes the connection, so the pool's sockets check at the moment of sending. A check cannot cover a leader
 * paused between it and the write, nor one whose clock wrongly says it still leads: so every command also carries
 * the role's term ({@code leaderTerm}), and a worker that has heard from a newer leader refuses it.
 *
 * <p>Every connection's unhandled messages count against one {@link InboundLimit} of
 * {@code maxQueuedMessages}, which result routing shares ({@link #inboundLimit()}): while the leader cannot publish
 * or deliver results as fast as the workers send them, it stops reading the workers' sockets.
 */
final class WorkerPool {

    /** What the pool tells the role. */
    interface Callbacks {
        /** A worker came online or went away: plan again. */
        void availabilityChanged(String url);

        /** A state report arrived; {@code changed}: its list of items differs from the last one. */
        void reported(String url, boolean changed);

        void detection(String url, WorkerMessage.ImageDetection detection);

        void patchSession(String url, WorkerMessage.PatchSession patch);

        /** The worker announced it is about to stop ({@code draining}); the announcement lasts its connection. */
        void drainAnnounced(String url, String reason);

        /**
         * A new connection to the worker is open: a drain it announced on an earlier one is over (a worker still
         * draining announces it again on every connection).
         */
        void connectionOpened(String url);
    }

    private static final Logger log = LoggerFactory.getLogger(WorkerPool.class);

    private final String processId;
    private final WorkClusterConfig config;
    private final LeaderThreads threads;
    private final WorkerFleet fleet;
    private final LocalOutput local;
    private final TermWriter writer;
    private final WorkerTransport transport;
    private final Callbacks callbacks;
    private final Map<String, Slot> slots = new LinkedHashMap<>();
    // Item -> the cost (whole units of WorkItem.weight, at least 1) a worker last reported for it: kept while some
    // connection holds the item, so an item that just moved keeps its cost until its new worker reports one.
    private final Map<String, Long> reportedCosts = new HashMap<>();
    private final InboundLimit inbound;

    WorkerPool(String processId, WorkClusterConfig config, LeaderThreads threads, WorkerFleet fleet, LocalOutput local,
               TermWriter writer, BooleanSupplier acting, Callbacks callbacks) {
        this.processId = processId;
        this.config = config;
        this.threads = threads;
        this.fleet = fleet;
        this.local = local;
        this.writer = writer;
        this.transport = new ActingTransport(fleet.transport(), acting);
        this.callbacks = callbacks;
        this.inbound = new InboundLimit(config.maxQueuedMessages());
    }

    /** The bound shared by every worker's unhandled messages and the results being routed. */
    InboundLimit inboundLimit() {
        return inbound;
    }

    /** Opens a connection to every worker. */
    void start() {
        long now = threads.clock().nanoTime();
        for (String url : fleet.urls()) {
            Slot slot = new Slot(url);
            slot.awaySince = now; // not seen online by this leader yet: away since it started
            slots.put(url, slot);
            slot.connection = new WorkerConnection(URI.create(url), config.connection(), transport,
                    threads.scheduler(), threads.clock(), threads.random(), slot, inbound, writer.term());
            slot.connection.start();
        }
    }

    /** Closes every connection; nothing is sent after the close tasks run. */
    void close() {
        for (Slot slot : slots.values()) {
            slot.limiter.close();
            slot.connection.close();
        }
    }

    /** True when every worker has reported or failed once on its first connection. */
    boolean allSettled() {
        return slots.values().stream().allMatch(s -> s.settled);
    }

    /** Whether {@code url} is one of the cluster's workers. */
    boolean knows(String url) {
        return slots.containsKey(url);
    }

    boolean isOnline(String url) {
        Slot slot = slots.get(url);
        return slot != null && slot.connection.isOnline();
    }

    /** Every worker as the reconciler sees it now. */
    List<WorkerView> views() {
        List<WorkerView> views = new ArrayList<>(slots.size());
        long capacity = config.workerCapacity();
        for (Slot s : slots.values()) {
            WorkerMessage.StateReport report = s.report;
            boolean online = s.connection.isOnline();
            views.add(new WorkerView(s.url, online, capacity,
                    report == null ? 0 : fraction(report.cpuUsage()),
                    report == null ? 0 : fraction(report.memoryUsage()),
                    online ? s.reported : null, s.reportAt, s.openedAt, s.held, !online, s.awaySince));
        }
        return views;
    }

    /** The costs the workers last reported for the items some connection holds (item -> whole units, at least 1). */
    Map<String, Long> reportedCosts() {
        if (reportedCosts.isEmpty()) {
            return Map.of();
        }
        Map<String, Long> held = new HashMap<>(reportedCosts.size() * 2);
        for (Slot s : slots.values()) {
            for (String item : s.held) {
                Long cost = reportedCosts.get(item);
                if (cost != null) {
                    held.put(item, cost);
                }
            }
        }
        reportedCosts.keySet().retainAll(held.keySet());
        return held;
    }

    /** Whether the connection to {@code url} holds {@code item}. */
    boolean holds(String url, String item) {
        Slot slot = slots.get(url);
        return slot != null && slot.held.contains(item);
    }

    /** Subscribes (rate-limited); the connection holds it from now on. */
    void subscribe(String url, WorkerCommand.Subscribe subscribe) {
        Slot slot = slots.get(url);
        if (slot != null) {
            slot.held.add(subscribe.subscriptionIdentifier());
            slot.limiter.submit(() -> slot.connection.subscribe(subscribe));
        }
    }

    /** Holds a subscription the worker already runs, sending nothing. */
    void adopt(String url, WorkerCommand.Subscribe subscribe) {
        Slot slot = slots.get(url);
        if (slot != null) {
            slot.held.add(subscribe.subscriptionIdentifier());
            slot.connection.adopt(subscribe);
        }
    }

    /** Unsubscribes (rate-limited); the connection forgets it. Unknown workers are ignored. */
    void unsubscribe(String url, String item) {
        Slot slot = slots.get(url);
        if (slot != null) {
            slot.held.remove(item);
            slot.limiter.submit(() -> slot.connection.unsubscribe(item));
        }
    }

    void setSessionId(String url, String displayIdentifier, Long sessionId) {
        Slot slot = slots.get(url);
        if (slot != null) {
            slot.connection.setSessionId(displayIdentifier, sessionId);
        }
    }

    void patchSessionResult(String url, long sessionId, boolean success, String message) {
        Slot slot = slots.get(url);
        if (slot != null) {
            slot.connection.patchSessionResult(sessionId, success, message);
        }
    }

    /** Seed 001's CPU and memory are percentages (0..100) or fractions; the planner wants fractions. */
    static double fraction(double value) {
        if (!(value > 0)) {
            return 0;
        }
        double f = value > 1 ? value / 100 : value;
        return Math.min(f, 1);
    }

    private void writeState(Slot s) {
        WorkerMessage.StateReport r = s.report;
        boolean online = s.connection.isOnline();
        WorkerConnectionState state = new WorkerConnectionState(s.url, processId, online,
                s.connection.status().name().toLowerCase(java.util.Locale.ROOT),
                r == null ? null : r.cpuUsage(), r == null ? null : r.memoryUsage(), r == null ? null : r.gpuUsage(),
                r == null ? null : r.gpuMemoryUsage(), s.reported == null ? 0 : s.reported.size(),
                s.reported == null ? List.of() : new ArrayList<>(new TreeSet<>(s.reported)), s.lastHeartbeat,
                s.connectedAt);
        s.lastStateWrite = threads.clock().nanoTime();
        s.stateWritten = true;
        writer.put(config.layout().connectionsMap(), s.url, state.toJson(), () -> { },
                e -> log.debug("could not record worker {}'s connection state: {}", s.url, e.toString()));
    }

    /** One worker's connection and what is known of it; the connection's listener. */
    private final class Slot implements WorkerConnectionListener {
        final String url;
        final Set<String> held = new HashSet<>();
        final RateLimiter limiter;
        WorkerConnection connection;
        WorkerMessage.StateReport report;
        Set<String> reported;
        long reportAt;
        long openedAt;
        Instant connectedAt;
        Instant lastHeartbeat;
        long lastStateWrite;
        boolean stateWritten;
        boolean settled;
        long awaySince;

        Slot(String url) {
            this.url = url;
            this.limiter = new RateLimiter(threads.scheduler(), threads.clock(), config.commandsPerSecond(),
                    config.commandBurst());
        }

        @Override
        public void onEvent(WorkerEvent event) {
            if (event instanceof WorkerEvent.DetectionResult) {
                return; // reported where the result is delivered, not where it arrives
            }
            boolean wasSettled = settled;
            if (event instanceof WorkerEvent.Connected) {
                openedAt = threads.clock().nanoTime();
                connectedAt = threads.clock().instant();
                reported = null;
                callbacks.connectionOpened(url);
            } else if (event instanceof WorkerEvent.Disconnected || event instanceof WorkerEvent.Offline) {
                reported = null;
                settled = true;
                if (event instanceof WorkerEvent.Offline) {
                    awaySince = threads.clock().nanoTime();
                }
            } else if (event instanceof WorkerEvent.WebSocketError) {
                settled = true;
            }
            local.event(new WorkClusterEvent.WorkerNotice(event));
            if (!(event instanceof WorkerEvent.Connecting)) {
                writeState(this);
            }
            if (event instanceof WorkerEvent.Online || event instanceof WorkerEvent.Offline
                    || event instanceof WorkerEvent.Disconnected || settled != wasSettled) {
                callbacks.availabilityChanged(url);
            }
        }

        @Override
        public void onMessage(String from, WorkerMessage message) {
            if (message instanceof WorkerMessage.StateReport r) {
                Set<String> items = new HashSet<>(r.cameraConnections().size() * 2);
                for (WorkerMessage.CameraConnection c : r.cameraConnections()) {
                    items.add(c.subscriptionIdentifier());
                    if (c.cost() != null && config.planner().mode() == BalanceMode.LOAD) { // only load mode uses it
                        reportedCosts.put(c.subscriptionIdentifier(), Math.max(1L, Math.round(c.cost())));
                    }
                }
                boolean changed = !items.equals(reported);
                report = r;
                reported = items;
                reportAt = threads.clock().nanoTime();
                lastHeartbeat = threads.clock().instant();
                boolean first = !settled;
                settled = true;
                if (changed || !stateWritten
                        || reportAt - lastStateWrite >= config.connectionStateInterval().toNanos()) {
                    writeState(this);
                }
                if (first) {
                    callbacks.availabilityChanged(url); // the last first report ends a new leader's takeover wait
                }
                callbacks.reported(url, changed);
            } else if (message instanceof WorkerMessage.ImageDetection d) {
                callbacks.detection(url, d);
            } else if (message instanceof WorkerMessage.PatchSession p) {
                callbacks.patchSession(url, p);
            } else if (message instanceof WorkerMessage.Draining d) {
                callbacks.drainAnnounced(url, d.reason());
            } else {
                // The codec builds only the types above; another one is a bug here, not a worker's fault.
                throw new IllegalStateException("no handling for worker message " + message.getClass().getName());
            }
        }
    }

    /** The environment's transport, with sockets that send nothing once the role may no longer act. */
    private static final class ActingTransport implements WorkerTransport {
        private final WorkerTransport delegate;
        private final BooleanSupplier acting;

        ActingTransport(WorkerTransport delegate, BooleanSupplier acting) {
            this.delegate = delegate;
            this.acting = acting;
        }

        @Override
        public CompletableFuture<Socket> open(URI uri, Duration timeout, Handler handler) {
            return delegate.open(uri, timeout, handler).thenApply(socket -> new Socket() {
                @Override
                public void send(String text) {
                    if (acting.getAsBoolean()) {
                        socket.send(text);
                    }
                }

                @Override
                public void request(long n) {
                    socket.request(n); // reading is not acting: a deposed role still drains what it asked for
                }

                @Override
                public void close() {
                    socket.close();
                }

                @Override
                public void abort() {
                    socket.abort();
                }
            });
        }
    }
}

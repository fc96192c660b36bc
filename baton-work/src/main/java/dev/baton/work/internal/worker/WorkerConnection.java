package dev.baton.work.internal.worker;

import dev.baton.work.worker.WorkerConnectionConfig;
import dev.baton.work.worker.WorkerEvent;
import dev.baton.work.worker.WorkerMessage;
import dev.baton.work.worker.WorkerTransport;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection from the leader to one worker: the seed's {@code DetectorConnection}.
 *
 * <p>State machine (the seed's "Worker Connection State Machine", with its {@code worker:connected} step made
 * explicit): {@code NEW -start()-> CONNECTING -open-> CONNECTED -state report-> ONLINE}. A failed attempt or a lost
 * connection goes to {@code RECONNECTING} and tries again after {@code reconnectDelay} plus jitter; an open connection
 * without a state report for {@code reportTimeout} is {@code OFFLINE}: the socket is dropped and a reconnect is
 * scheduled the same way. {@code close()} ends in {@code CLOSED} from any state.
 *
 * <p>On every open it sends {@code requestState}, and when the first {@code stateReport} of the new connection
 * arrives it re-sends every subscription it holds that the report does not list (the seed's
 * {@code resubscribeAll()}, narrowed): a restarted worker has lost them all and gets them all, while a worker that was
 * only cut off for a moment and still runs them gets nothing again. The worker's own view arrives in each
 * {@code stateReport}'s {@code cameraConnections}, which the reconciler diffs.
 *
 * <p>Malformed, unknown-type, mistyped and oversized messages are counted by {@link WorkerProtocolException.Problem},
 * logged at WARN with the worker's URL (at most one line per {@code badMessageLogInterval}) and dropped; the
 * connection stays up while the worker keeps within its bad-message budget.
 *
 * <p><b>Backpressure.</b> The connection asks its socket for at most {@code maxQueuedMessages} messages ahead of
 * what it has handled (and only as many as the shared {@link InboundLimit} allows), and for the next one only after
 * one is handled: a worker that sends faster than the scheduler handles its messages is held back by TCP, so what
 * waits between the socket and the scheduler stays bounded ({@link #queuedMessages()}).
 *
 * <p><b>Budget.</b> Each worker may send {@code messagesPerSecond} messages a second with bursts of
 * {@code messageBurst}, and {@code badMessagesPerSecond} bad ones with bursts of {@code badMessageBurst}, measured as
 * they are handled. A worker over either budget is <i>flooding</i>: the connection reports
 * {@code worker:websocket_error} with an error starting {@code flooding:}, drops the socket ({@code
 * worker:disconnected}, and {@code worker:offline} if it was online, so its items move), and reconnects after
 * {@code reconnectDelay} plus jitter with fresh budgets.
 *
 * <p><b>Leader term.</b> A connection opened for the leader of a term writes that term as {@code leaderTerm} on every
 * command it sends (re-sends after a reconnect included), so a worker that has heard from a newer leader refuses
 * them ({@link LeaderTermFence}). A connection of no term sends the original protocol unchanged.
 *
 * <p>All state is touched only on the {@link Scheduler} passed in (which must run tasks one at a time); the public
 * methods post to it and may be called from any thread. Listener calls run there too.
 */
public final class WorkerConnection implements AutoCloseable {

    /** The connection's state; see the class comment for the transitions. */
    public enum Status { NEW, CONNECTING, CONNECTED, ONLINE, OFFLINE, RECONNECTING, CLOSED }

    private static final Logger log = LoggerFactory.getLogger(WorkerConnection.class);

    private final URI uri;
    private final String url;
    private final WorkerConnectionConfig config;
    private final WorkerTransport transport;
    private final Scheduler scheduler;
    private final Clock clock;
    private final Random random;
    private final WorkerConnectionListener listener;
    private final WorkerProtocolCodec codec;
    private final InboundLimit limit;
    private final Runnable wakeUp;
    private final long leaderTerm;

    // Scheduler-confined state.
    private final Map<String, WorkerCommand.Subscribe> held = new LinkedHashMap<>();
    // Items subscribed on the current connection before its first report: not re-sent when that report lacks them.
    private final Set<String> sentBeforeReport = new HashSet<>();
    private boolean restored;
    private final Map<WorkerProtocolException.Problem, Long> badByProblem =
            new EnumMap<>(WorkerProtocolException.Problem.class);
    private volatile Status status = Status.NEW;
    private volatile WorkerMessage.StateReport lastReport;
    private WorkerTransport.Socket socket;
    private long generation;
    private int attempt;
    private Scheduler.Cancellable reportDeadline = Scheduler.Cancellable.NONE;
    private Scheduler.Cancellable reconnect = Scheduler.Cancellable.NONE;
    private long lastBadLogNanos = Long.MIN_VALUE;
    private long badSinceLog;
    private final AtomicLong badMessages = new AtomicLong();
    private final AtomicLong connects = new AtomicLong();
    private final AtomicLong floodDisconnects = new AtomicLong();
    // Messages the socket handed over and the scheduler has not handled yet (any generation).
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger peakQueued = new AtomicInteger();
    // Scheduler-confined: demand given to the current socket (and units taken from the limit) not yet used up.
    private int outstanding;
    private TokenBucket messageBudget;
    private TokenBucket badBudget;

    /**
     * A connection to {@code uri}, not yet started.
     *
     * @param random the source of reconnect jitter; pass a seeded one in tests
     */
    public WorkerConnection(URI uri, WorkerConnectionConfig config, WorkerTransport transport, Scheduler scheduler,
                            Clock clock, Random random, WorkerConnectionListener listener) {
        this(uri, config, transport, scheduler, clock, random, listener, InboundLimit.unbounded());
    }

    /**
     * A connection to {@code uri}, not yet started, whose unhandled messages count against {@code limit}, shared
     * with the other connections of one backend.
     *
     * @param random the source of reconnect jitter; pass a seeded one in tests
     */
    public WorkerConnection(URI uri, WorkerConnectionConfig config, WorkerTransport transport, Scheduler scheduler,
                            Clock clock, Random random, WorkerConnectionListener listener, InboundLimit limit) {
        this(uri, config, transport, scheduler, clock, random, listener, limit, FencedCommand.NO_TERM);
    }

    /**
     * A connection to {@code uri} for the leader of {@code leaderTerm}, not yet started: every command it sends
     * carries that term. Its unhandled messages count against {@code limit}.
     *
     * @param random     the source of reconnect jitter; pass a seeded one in tests
     * @param leaderTerm the sending leader's fencing term, or {@link FencedCommand#NO_TERM} to send none
     */
    public WorkerConnection(URI uri, WorkerConnectionConfig config, WorkerTransport transport, Scheduler scheduler,
                            Clock clock, Random random, WorkerConnectionListener listener, InboundLimit limit,
                            long leaderTerm) {
        if (leaderTerm < FencedCommand.NO_TERM) {
            throw new IllegalArgumentException("leaderTerm must be at least 0, was " + leaderTerm);
        }
        this.leaderTerm = leaderTerm;
        this.limit = Objects.requireNonNull(limit, "limit");
        this.wakeUp = () -> scheduler.execute(this::refill);
        this.uri = Objects.requireNonNull(uri, "uri");
        this.url = uri.toString();
        this.config = Objects.requireNonNull(config, "config");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.random = Objects.requireNonNull(random, "random");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.codec = new WorkerProtocolCodec(config.maxMessageBytes());
    }

    /** A connection on the JDK WebSocket client. */
    public static WorkerConnection overJdkWebSocket(URI uri, WorkerConnectionConfig config, Scheduler scheduler,
                                                    Clock clock, Random random, WorkerConnectionListener listener) {
        return new WorkerConnection(uri, config, new JdkWebSocketTransport(config.maxMessageBytes()), scheduler,
                clock, random, listener);
    }

    /** The worker's URL. */
    public String url() {
        return url;
    }

    /** The term written on every command, or {@link FencedCommand#NO_TERM}. */
    public long leaderTerm() {
        return leaderTerm;
    }

    /** The current state. */
    public Status status() {
        return status;
    }

    /** True when the worker is online: connected and reporting. */
    public boolean isOnline() {
        return status == Status.ONLINE;
    }

    /** The last state report received, or null. */
    public WorkerMessage.StateReport lastReport() {
        return lastReport;
    }

    /** How many bad messages were dropped. */
    public long badMessages() {
        return badMessages.get();
    }

    /** Messages read from the socket and not yet handled: at most {@code maxQueuedMessages} on a flow-controlled transport. */
    public int queuedMessages() {
        return queued.get();
    }

    /** The most messages ever waiting between the socket and the scheduler at once. */
    public int peakQueuedMessages() {
        return peakQueued.get();
    }

    /** How many times the worker was disconnected for going over its message budget. */
    public long floodDisconnects() {
        return floodDisconnects.get();
    }

    /** How many times a WebSocket was opened. */
    public long connects() {
        return connects.get();
    }

    /** Bad messages dropped, by problem; read on the scheduler or after it is idle. */
    public synchronized Map<WorkerProtocolException.Problem, Long> badMessagesByProblem() {
        return Map.copyOf(badByProblem);
    }

    /** The subscriptions this connection was asked to hold, in the order they were first asked for. */
    public synchronized List<WorkerCommand.Subscribe> heldSubscriptions() {
        return List.copyOf(held.values());
    }

    /** Starts connecting. Runs once; later calls do nothing. */
    public void start() {
        scheduler.execute(() -> {
            if (status == Status.NEW) {
                attempt(Status.CONNECTING);
            }
        });
    }

    /** Asks the worker to run a subscription, now if connected, else on the next connect; remembered until unsubscribed. */
    public void subscribe(WorkerCommand.Subscribe subscribe) {
        Objects.requireNonNull(subscribe, "subscribe");
        scheduler.execute(() -> {
            synchronized (this) {
                held.put(subscribe.subscriptionIdentifier(), subscribe);
            }
            sendIfOpen(subscribe);
        });
    }

    /**
     * Remembers a subscription the worker already runs (its state report lists it) without sending it: after a
     * reconnect it is re-sent like any held one if the worker no longer lists it. A new leader uses this to take over what its predecessor subscribed
     * without subscribing anything twice.
     */
    public void adopt(WorkerCommand.Subscribe subscribe) {
        Objects.requireNonNull(subscribe, "subscribe");
        scheduler.execute(() -> {
            synchronized (this) {
                held.put(subscribe.subscriptionIdentifier(), subscribe);
            }
        });
    }

    /** Asks the worker to stop a subscription and forgets it. */
    public void unsubscribe(String subscriptionIdentifier) {
        Objects.requireNonNull(subscriptionIdentifier, "subscriptionIdentifier");
        scheduler.execute(() -> {
            synchronized (this) {
                held.remove(subscriptionIdentifier);
            }
            sendIfOpen(new WorkerCommand.Unsubscribe(subscriptionIdentifier));
        });
    }

    /** Sends {@code requestState} if connected. */
    public void requestState() {
        scheduler.execute(() -> sendIfOpen(new WorkerCommand.RequestState()));
    }

    /** Sends {@code setSessionId} if connected; not remembered across reconnects (the seed does not restore it). */
    public void setSessionId(String displayIdentifier, Long sessionId) {
        WorkerCommand command = new WorkerCommand.SetSessionId(displayIdentifier, sessionId);
        scheduler.execute(() -> sendIfOpen(command));
    }

    /** Answers a worker's {@code patchSession}, if connected. */
    public void patchSessionResult(long sessionId, boolean success, String message) {
        WorkerCommand command = new WorkerCommand.PatchSessionResult(sessionId, success, message);
        scheduler.execute(() -> sendIfOpen(command));
    }

    /** Closes the connection and stops reconnecting. Idempotent. */
    @Override
    public void close() {
        scheduler.execute(() -> {
            if (status == Status.CLOSED) {
                return;
            }
            Status was = status;
            status = Status.CLOSED;
            generation++;
            giveBackDemand();
            reportDeadline.cancel();
            reconnect.cancel();
            if (socket != null) {
                socket.close();
                socket = null;
                emit(new WorkerEvent.Disconnected(url, "closed"));
            }
            if (was == Status.ONLINE) {
                emit(new WorkerEvent.Offline(url, "closed"));
            }
        });
    }

    // ---------------------------------------------------------------- state machine (on the scheduler)

    private void attempt(Status connecting) {
        status = connecting;
        long gen = ++generation;
        attempt++;
        emit(new WorkerEvent.Connecting(url, attempt));
        transport.open(uri, config.connectTimeout(), new Events(gen)).whenComplete((s, error) ->
                scheduler.execute(() -> {
                    if (gen != generation) {
                        if (s != null) {
                            s.abort(); // closed or superseded meanwhile
                        }
                        return;
                    }
                    if (error != null) {
                        emit(new WorkerEvent.WebSocketError(url, describe(error)));
                        scheduleReconnect(Status.RECONNECTING);
                    } else {
                        opened(s);
                    }
                }));
    }

    private void opened(WorkerTransport.Socket s) {
        socket = s;
        status = Status.CONNECTED;
        attempt = 0;
        connects.incrementAndGet();
        long now = clock.nanoTime();
        messageBudget = new TokenBucket(config.messagesPerSecond(), config.messageBurst(), now);
        badBudget = new TokenBucket(config.badMessagesPerSecond(), config.badMessageBurst(), now);
        emit(new WorkerEvent.Connected(url));
        armReportDeadline();
        send(new WorkerCommand.RequestState());
        restored = false;
        sentBeforeReport.clear();
        refill();
    }

    /** The first report of a connection: re-sends the held subscriptions it does not list. */
    private void restore(WorkerMessage.StateReport report) {
        restored = true;
        Set<String> running = new HashSet<>();
        for (WorkerMessage.CameraConnection c : report.cameraConnections()) {
            running.add(c.subscriptionIdentifier());
        }
        List<WorkerCommand.Subscribe> missing = new ArrayList<>();
        synchronized (this) {
            for (WorkerCommand.Subscribe subscribe : held.values()) {
                String id = subscribe.subscriptionIdentifier();
                if (!running.contains(id) && !sentBeforeReport.contains(id)) {
                    missing.add(subscribe);
                }
            }
        }
        sentBeforeReport.clear();
        for (WorkerCommand.Subscribe subscribe : missing) {
            send(subscribe);
        }
    }

    /** Asks the socket for as many messages as the window and the shared limit allow. */
    private void refill() {
        if (socket == null || !(status == Status.CONNECTED || status == Status.ONLINE)) {
            return;
        }
        int wanted = config.maxQueuedMessages() - outstanding;
        if (wanted <= 0) {
            return;
        }
        int granted = limit.tryAcquire(wanted, wakeUp);
        if (granted > 0) {
            outstanding += granted;
            socket.request(granted);
        }
    }

    /** The socket is gone: the demand it did not use goes back to the shared limit. */
    private void giveBackDemand() {
        limit.release(outstanding);
        outstanding = 0;
    }

    /** A message of the current socket was handled: its unit goes back, and the socket may read the next one. */
    private void handled(long gen) {
        if (gen != generation) {
            return; // dropped meanwhile (flooding, say): its demand was given back then
        }
        if (outstanding > 0) {
            outstanding--;
            limit.release(1);
        }
        refill();
    }

    /** Takes one unit of the worker's message budget; a worker over it is disconnected as flooding. */
    private boolean withinBudget(long gen, TokenBucket budget, Supplier<String> what) {
        if (budget == null || budget.take(clock.nanoTime())) { // null: no socket was opened on this scheduler yet
            return true;
        }
        floodDisconnects.incrementAndGet();
        // The budget's wording only now: building it for every message would cost more than the check.
        String reason = "flooding: more than " + what.get() + "; disconnected";
        log.warn("worker {}: {}, reconnecting after {} ms", url, reason, config.reconnectDelay().toMillis());
        emit(new WorkerEvent.WebSocketError(url, reason));
        lost(gen, reason, null);
        return false;
    }

    private static String rate(double perSecond, int burst, String unit) {
        String r = perSecond == Math.rint(perSecond) ? Long.toString((long) perSecond) : Double.toString(perSecond);
        return r + " " + unit + " a second (burst " + burst + ")";
    }

    private void armReportDeadline() {
        reportDeadline.cancel();
        long gen = generation;
        reportDeadline = scheduler.schedule(config.reportTimeout(), () -> {
            if (gen == generation && (status == Status.CONNECTED || status == Status.ONLINE)) {
                reportTimedOut();
            }
        });
    }

    private void reportTimedOut() {
        Status was = status;
        generation++;
        if (socket != null) {
            socket.abort();
            socket = null;
        }
        giveBackDemand();
        String reason = "no state report for " + config.reportTimeout().toMillis() + " ms";
        log.warn("worker {} is offline: {}; reconnecting", url, reason);
        emit(new WorkerEvent.Disconnected(url, reason));
        if (was == Status.ONLINE) {
            emit(new WorkerEvent.Offline(url, reason));
        }
        scheduleReconnect(Status.OFFLINE);
    }

    private void lost(long gen, String reason, Throwable error) {
        if (gen != generation || socket == null) {
            return;
        }
        Status was = status;
        generation++;
        giveBackDemand();
        reportDeadline.cancel();
        socket.abort();
        socket = null;
        if (error != null) {
            emit(new WorkerEvent.WebSocketError(url, describe(error)));
        }
        emit(new WorkerEvent.Disconnected(url, reason));
        if (was == Status.ONLINE) {
            emit(new WorkerEvent.Offline(url, reason));
        }
        scheduleReconnect(Status.RECONNECTING);
    }

    private void scheduleReconnect(Status waiting) {
        status = waiting;
        reportDeadline.cancel();
        long jitterNanos = config.reconnectJitter().toNanos();
        long extra = jitterNanos <= 0 ? 0 : (long) (random.nextDouble() * jitterNanos);
        Duration delay = config.reconnectDelay().plusNanos(extra);
        long gen = generation;
        reconnect = scheduler.schedule(delay, () -> {
            if (gen == generation && status == waiting) {
                attempt(Status.RECONNECTING);
            }
        });
    }

    private void received(long gen, String text) {
        queued.decrementAndGet();
        if (gen != generation) {
            return;
        }
        try {
            handle(gen, text);
        } finally {
            handled(gen);
        }
    }

    private void oversized(long gen, long chars) {
        queued.decrementAndGet();
        if (gen != generation) {
            return;
        }
        try {
            if (withinBudget(gen, messageBudget, this::messageRate)) {
                dropped(gen, codec.oversized(chars));
            }
        } finally {
            handled(gen);
        }
    }

    private String messageRate() {
        return rate(config.messagesPerSecond(), config.messageBurst(), "messages");
    }

    private void handle(long gen, String text) {
        if (!withinBudget(gen, messageBudget, this::messageRate)) {
            return;
        }
        WorkerMessage message;
        try {
            message = codec.decodeMessage(text);
        } catch (WorkerProtocolException e) {
            dropped(gen, e);
            return;
        }
        if (message instanceof WorkerMessage.StateReport report) {
            lastReport = report;
            armReportDeadline();
            if (!restored) {
                restore(report);
            }
            if (status == Status.CONNECTED) {
                status = Status.ONLINE;
                emit(new WorkerEvent.Online(url));
            }
        }
        deliver(message);
        if (message instanceof WorkerMessage.ImageDetection detection) {
            emit(new WorkerEvent.DetectionResult(url, detection.subscriptionIdentifier(),
                    detection.detection().isEmpty() ? 0 : 1));
        }
    }

    private void dropped(long gen, WorkerProtocolException e) {
        badMessages.incrementAndGet();
        synchronized (this) {
            badByProblem.merge(e.problem(), 1L, Long::sum);
        }
        if (!withinBudget(gen, badBudget,
                () -> rate(config.badMessagesPerSecond(), config.badMessageBurst(), "bad messages"))) {
            return;
        }
        badSinceLog++;
        long now = clock.nanoTime();
        if (lastBadLogNanos == Long.MIN_VALUE || now - lastBadLogNanos >= config.badMessageLogInterval().toNanos()) {
            log.warn("worker {}: dropped a bad message ({}): {}{}", url, e.problem(), e.getMessage(),
                    badSinceLog > 1 ? " (" + (badSinceLog - 1) + " more dropped since the last warning)" : "");
            lastBadLogNanos = now;
            badSinceLog = 0;
        }
    }

    private void sendIfOpen(WorkerCommand command) {
        if (socket != null && (status == Status.CONNECTED || status == Status.ONLINE)) {
            if (!restored && command instanceof WorkerCommand.Subscribe subscribe) {
                sentBeforeReport.add(subscribe.subscriptionIdentifier());
            }
            send(command);
        }
    }

    private void send(WorkerCommand command) {
        socket.send(codec.encode(command, leaderTerm));
    }

    private void emit(WorkerEvent event) {
        try {
            listener.onEvent(event);
        } catch (RuntimeException e) {
            log.error("worker {}: listener failed on {}", url, event.name(), e);
        }
    }

    private void deliver(WorkerMessage message) {
        try {
            listener.onMessage(url, message);
        } catch (RuntimeException e) {
            log.error("worker {}: listener failed on {}", url, message.type(), e);
        }
    }

    private static String describe(Throwable error) {
        Throwable t = error;
        while ((t instanceof java.util.concurrent.CompletionException
                || t instanceof java.util.concurrent.ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        String message = t.getMessage();
        return t.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    /** Transport callbacks for one connection attempt, posted to the scheduler and ignored once stale. */
    private final class Events implements WorkerTransport.Handler {
        private final long gen;

        Events(long gen) {
            this.gen = gen;
        }

        @Override
        public void onText(String text) {
            arrived();
            scheduler.execute(() -> received(gen, text));
        }

        @Override
        public void onOversized(long chars) {
            arrived();
            scheduler.execute(() -> oversized(gen, chars));
        }

        private void arrived() {
            peakQueued.accumulateAndGet(queued.incrementAndGet(), Math::max);
        }

        @Override
        public void onClosed(int statusCode, String reason) {
            scheduler.execute(() -> lost(gen, "closed by worker (" + statusCode
                    + (reason == null || reason.isEmpty() ? "" : ", " + reason) + ")", null));
        }

        @Override
        public void onError(Throwable error) {
            scheduler.execute(() -> lost(gen, "connection failed: " + describe(error), error));
        }
    }
}

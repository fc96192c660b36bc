package dev.baton.worker.sim;

import dev.baton.core.time.Clock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.java_websocket.WebSocket;
import org.java_websocket.framing.CloseFrame;

/**
 * A worker of the original design that runs no model: a real WebSocket server on a loopback port speaking the worker
 * side of the seed's JSON protocol. It keeps the subscriptions it is given ({@code subscribe}, {@code unsubscribe}), answers
 * {@code requestState}, {@code subscribe} and {@code unsubscribe} with a {@code stateReport}, sends a
 * {@code stateReport} with its CPU and memory every report interval (2 s, as the seed's workers), and emits
 * {@code imageDetection} results for each subscription at a configurable rate. It refuses a command of a deposed
 * leader: one whose {@code leaderTerm} is below a newer leader's on a connection still open ({@link #refused()}).
 *
 * <p>For fault tests it can be {@linkplain #kill() killed} (connections dropped without a close handshake, as when
 * the process dies; its subscriptions are lost like a real worker's), {@linkplain #restart() restarted} on the same
 * port, {@linkplain #setReplyDelay slowed} (every message it sends is delayed) and made to
 * {@linkplain #sendGarbage send garbage}. It records what it receives so tests can assert on it. To test a backend's
 * backpressure and message budget it can {@linkplain #flood(int) flood} it: results and malformed lines as fast as
 * the connection takes them, with a state report every 1,000 messages ({@link Builder#flood(boolean)} keeps doing so
 * while it runs).
 *
 * <p>Before it stops it can {@linkplain #drain drain}: announce {@code draining} to every backend (and to each that
 * connects later) and wait until the leader has moved everything it ran elsewhere.
 *
 * <p>It cannot use baton-work's codec (baton-work's tests run against it), so it reads and writes the JSON itself.
 * Thread-safe. The {@link Listener} is called on the worker's timer thread or the server's thread.
 */
public final class SimulatedWorker implements AutoCloseable {

    /** Kinds of bad input the worker can send, to test how a backend copes. */
    public enum Garbage {
        /** Text that is not JSON. */
        MALFORMED_JSON,
        /** A JSON message with a type the protocol does not have. */
        UNKNOWN_TYPE,
        /** A well-formed {@code patchSession} larger than {@link Builder#oversizedBytes}. */
        OVERSIZED
    }

    /** Told about each command received and each batch of results sent; for {@code baton worker}'s output. */
    public interface Listener {
        /** A message arrived from the backend, as its JSON text. */
        default void onCommand(String json) { }

        /**
         * A JSON command was judged: {@code carriedOut} false means it was refused as a deposed leader's (its
         * {@code leaderTerm} below a newer leader's). Called while the worker judges it, so one worker's verdicts come
         * in the order they took effect; {@code json} is the command's text. Keep it short: no other command of this
         * worker is judged meanwhile.
         */
        default void onJudged(String json, boolean carriedOut) { }

        /**
         * A report interval passed: {@code detections} results were sent since the last batch, per subscription.
         * Called once per report interval while a backend is connected.
         */
        default void onBatch(Map<String, Long> detections, int subscriptions, int connections) { }
    }

    private final String host;
    private final Duration reportInterval;
    private final double detectionsPerSecond;
    private final int oversizedBytes;
    private final Clock clock;
    private final Listener listener;
    private final ScheduledExecutorService timer;
    private final Sender sender;

    private final WorkerProtocol protocol = new WorkerProtocol();
    private final Emissions emissions;
    private final Flood flood;
    private final boolean flooding;

    private volatile SocketServer server;
    private volatile int port;
    private volatile String drainReason;
    private boolean closed;

    private SimulatedWorker(Builder b) {
        this.host = b.host;
        this.port = b.port;
        this.reportInterval = b.reportInterval;
        this.detectionsPerSecond = b.detectionsPerSecond;
        this.oversizedBytes = b.oversizedBytes;
        this.clock = b.clock;
        this.listener = b.listener;
        this.flooding = b.flood;
        this.emissions = new Emissions(protocol, clock, detectionsPerSecond, listener, () -> server, this::broadcast);
        this.flood = new Flood(protocol, emissions::detection);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "simulated-worker");
            t.setDaemon(true);
            return t;
        });
        this.sender = new Sender(timer);
        protocol.startupDelay(b.startupDelay, (delay, task) -> timer.schedule(task, delay.toNanos(),
                TimeUnit.NANOSECONDS));
    }

    /** A builder; {@link Builder#start()} starts the worker. */
    public static Builder builder() {
        return new Builder();
    }

    /** Starts a worker with the defaults on a free loopback port. */
    public static SimulatedWorker start() {
        return builder().start();
    }

    private void begin() {
        bind();
        long reportMs = reportInterval.toMillis();
        timer.scheduleAtFixedRate(emissions::report, reportMs, reportMs, TimeUnit.MILLISECONDS);
        if (detectionsPerSecond > 0) {
            long tick = Emissions.TICK.toMillis();
            timer.scheduleAtFixedRate(emissions::detect, tick, tick, TimeUnit.MILLISECONDS);
        }
        if (flooding) {
            // Each round sends one batch to every connection whose last batch has left (so the worker's own queue
            // stays small) and reschedules itself; a backend that stops reading holds it back through TCP.
            timer.scheduleWithFixedDelay(() -> flood.round(server), 1, 1, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Sends {@code messages} messages at once to every connected backend, as fast as the socket takes them: results
     * for its subscriptions (or for {@code flood;camera} when it has none), every tenth a malformed line, and a
     * {@code stateReport} after every 1,000. The messages queue in the worker (this call does not wait for the
     * network). Returns the number sent per connection.
     */
    public int flood(int messages) {
        if (messages < 0) {
            throw new IllegalArgumentException("messages must not be negative, was " + messages);
        }
        SocketServer s = server;
        if (s != null) {
            for (WebSocket conn : s.getConnections()) {
                flood.batch(conn, messages);
            }
        }
        return messages;
    }

    /** How many flood messages were sent in all. */
    public long floodSent() {
        return flood.sent();
    }

    private void bind() {
        SocketServer s = new SocketServer(new InetSocketAddress(host, port), this::onMessage, protocol::closed);
        s.setReuseAddr(true);
        s.setTcpNoDelay(true);
        s.start();
        try {
            if (!s.started.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("simulated worker did not start within 10 s on " + host + ":" + port);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting", e);
        }
        if (s.failure != null) {
            s.stopQuietly();
            throw new UncheckedIOException(new IOException("simulated worker could not listen on " + host + ":" + port
                    + ": " + s.failure.getMessage(), s.failure));
        }
        port = s.getPort();
        server = s;
    }

    /** The port it listens on. */
    public int port() {
        return port;
    }

    /** The URL a backend connects to, {@code ws://host:port}. */
    public URI uri() {
        return URI.create("ws://" + host + ":" + port);
    }

    /** Whether it is listening (not killed, not closed). */
    public boolean isRunning() {
        return server != null;
    }

    /** Sets the CPU usage reported from the next state report on. */
    public void setCpuUsage(double cpuUsage) {
        protocol.setCpuUsage(cpuUsage);
    }

    /** Sets the memory usage reported from the next state report on. */
    public void setMemoryUsage(double memoryUsage) {
        protocol.setMemoryUsage(memoryUsage);
    }

    /**
     * Reports {@code cost} (Baton's per-item {@code cost}, in the unit of the items' weight) for
     * {@code subscriptionIdentifier} from the next state report on, while it runs here; {@code null} stops reporting
     * one.
     */
    public void setItemCost(String subscriptionIdentifier, Double cost) {
        if (cost != null && (!Double.isFinite(cost) || cost < 0)) {
            throw new IllegalArgumentException("cost must be a finite number of at least 0, got " + cost);
        }
        protocol.setItemCost(subscriptionIdentifier, cost);
    }

    /** Delays every message it sends by {@code delay}; {@link Duration#ZERO} to stop. */
    public void setReplyDelay(Duration delay) {
        sender.setReplyDelay(delay);
    }

    /** The subscription identifiers it holds now, sorted. */
    public Set<String> subscriptions() {
        return protocol.subscriptionIds();
    }

    /** The {@code subscribe} payload it holds for {@code subscriptionIdentifier}, as JSON text, or null. */
    public String subscription(String subscriptionIdentifier) {
        return protocol.payloadOf(subscriptionIdentifier);
    }

    /** The session set for a display by {@code setSessionId}, as JSON text ({@code "null"} when cleared), or null. */
    public String sessionOf(String displayIdentifier) {
        return protocol.sessionOf(displayIdentifier);
    }

    /** Every message received since start, as JSON text, in order of arrival (also across restarts). */
    public List<String> received() {
        return protocol.received();
    }

    /**
     * Every command it refused as a deposed leader's, as JSON text, in order of arrival: its {@code leaderTerm} was
     * below the highest one a backend sent on a connection still open (or not a positive integer). A refused command
     * is not carried out and not answered; it is also in {@link #received()}.
     */
    public List<String> refused() {
        return protocol.refused();
    }

    /**
     * The highest {@code leaderTerm} a backend sent on a connection still open, 0 if none: commands of a lower term
     * are refused. Forgotten when {@linkplain #kill() killed}.
     */
    public long leaderTerm() {
        return protocol.newestLeaderTerm();
    }

    /** The {@code type} of every message received, in order; {@code "?"} for text that was not a message. */
    public List<String> receivedTypes() {
        List<String> types = new ArrayList<>();
        for (String json : protocol.received()) {
            types.add(WorkerJson.typeOf(json));
        }
        return types;
    }

    /** How many {@code imageDetection} results it has sent. */
    public long detectionsSent() {
        return emissions.detectionsSent();
    }

    /** How many backends are connected now. */
    public int connections() {
        SocketServer s = server;
        return s == null ? 0 : s.getConnections().size();
    }

    /** Sends a {@code stateReport} to every connected backend now. */
    public void sendStateReport() {
        broadcast(protocol.stateReport());
    }

    /** Sends a {@code patchSession} with {@code dataJson} (any JSON value) to every connected backend. */
    public void sendPatchSession(long sessionId, String dataJson) {
        broadcast(WorkerJson.patchSession(sessionId, dataJson));
    }

    /**
     * Announces that it is about to stop ({@code draining}, with {@code reason}) to every connected backend, and
     * again on every later connection, then waits until it runs nothing (the leader moved each item to another worker
     * and then unsubscribed it here) or {@code timeout} passes.
     *
     * @return whether it runs nothing now
     */
    public boolean drain(String reason, Duration timeout) throws InterruptedException {
        drainReason = reason == null ? "stopping" : reason;
        broadcast(WorkerJson.draining(drainReason));
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!protocol.subscriptionIds().isEmpty() && System.nanoTime() - deadline < 0) {
            TimeUnit.MILLISECONDS.sleep(20);
        }
        return protocol.subscriptionIds().isEmpty();
    }

    /** Whether {@link #drain} was called. */
    public boolean isDraining() {
        return drainReason != null;
    }

    /** Sends one piece of {@code garbage} to every connected backend. */
    public void sendGarbage(Garbage garbage) {
        broadcast(WorkerJson.garbage(Objects.requireNonNull(garbage, "garbage"), oversizedBytes));
    }

    /**
     * Dies as a crashed process does: every connection is dropped without a close handshake, the port is closed, and
     * the subscriptions are forgotten. {@link #restart()} brings it back on the same port.
     */
    public void kill() {
        SocketServer s;
        synchronized (this) {
            s = server;
            server = null;
            protocol.forget();
        }
        if (s != null) {
            for (WebSocket conn : s.getConnections()) {
                conn.closeConnection(CloseFrame.ABNORMAL_CLOSE, "worker killed");
            }
            s.stopQuietly();
        }
    }

    /**
     * Starts listening again on the same port after {@link #kill()}, with no subscriptions and not draining, as a
     * restarted worker.
     */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (server != null) {
            throw new IllegalStateException("still running: kill() it first");
        }
        drainReason = null; // a new process: not stopping
        bind();
    }

    /** Stops it for good: connections closed normally, timers stopped. */
    @Override
    public void close() {
        SocketServer s;
        synchronized (this) {
            closed = true;
            s = server;
            server = null;
        }
        timer.shutdownNow();
        if (s != null) {
            s.stopQuietly();
        }
    }

    // ---------------------------------------------------------------- protocol

    private void onMessage(WebSocket conn, String text) {
        listener.onCommand(text);
        protocol.onCommand(conn, text, reply -> sender.send(conn, reply),
                carriedOut -> listener.onJudged(text, carriedOut));
        String reason = drainReason;
        if (reason != null && "requestState".equals(WorkerJson.typeOf(text))) {
            sender.send(conn, WorkerJson.draining(reason)); // a new backend connection: announce it there too
        }
    }

    private void broadcast(String text) {
        sender.broadcast(server, text);
    }

    /** Settings of a {@link SimulatedWorker}. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port;
        private Duration reportInterval = Duration.ofSeconds(2);
        private double detectionsPerSecond = 1.0;
        private int oversizedBytes = (1 << 20) + 1024;
        private Clock clock = Clock.system();
        private Listener listener = new Listener() { };
        private boolean flood;
        private Duration startupDelay = Duration.ZERO;

        private Builder() { }

        /** The address to listen on; default {@code 127.0.0.1}. */
        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /** The port; default 0, a free port. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be in 0..65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /** How often it sends a state report; default 2 s, the seed's {@code STATE_UPDATE_INTERVAL}. */
        public Builder reportInterval(Duration reportInterval) {
            if (reportInterval.toMillis() < 1) {
                throw new IllegalArgumentException("reportInterval must be at least 1 ms, was " + reportInterval);
            }
            this.reportInterval = reportInterval;
            return this;
        }

        /** Detection results per second for each subscription; default 1; 0 sends none. */
        public Builder detectionsPerSecond(double detectionsPerSecond) {
            if (!(detectionsPerSecond >= 0) || detectionsPerSecond > 10_000) {
                throw new IllegalArgumentException("detectionsPerSecond must be in 0..10000, was "
                        + detectionsPerSecond);
            }
            this.detectionsPerSecond = detectionsPerSecond;
            return this;
        }

        /** Size of the {@link Garbage#OVERSIZED} message; default 1 MiB + 1 KiB. */
        public Builder oversizedBytes(int oversizedBytes) {
            this.oversizedBytes = oversizedBytes;
            return this;
        }

        /** The clock stamping detection results; default the system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Told about each received command and each batch of results. */
        public Builder listener(Listener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Floods every connected backend for as long as it runs: batches of 1,000 messages (results, every tenth a
         * malformed line, a state report after each 1,000) whenever the last batch has left; default off. For
         * testing a backend's backpressure and message budget, never against a production leader.
         */
        /**
         * How long a new subscription takes to start running (as a real worker loading its model), default zero:
         * until then {@link #subscriptions()} and its reports leave it out.
         */
        public Builder startupDelay(Duration value) {
            if (value.isNegative()) {
                throw new IllegalArgumentException("startupDelay must not be negative, was " + value);
            }
            this.startupDelay = value;
            return this;
        }

        public Builder flood(boolean flood) {
            this.flood = flood;
            return this;
        }

        /** Starts listening and returns the running worker. */
        public SimulatedWorker start() {
            SimulatedWorker worker = new SimulatedWorker(this);
            try {
                worker.begin();
            } catch (RuntimeException e) {
                worker.close();
                throw e;
            }
            return worker;
        }
    }
}

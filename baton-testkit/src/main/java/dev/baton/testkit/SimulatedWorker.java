package dev.baton.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.time.Clock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.java_websocket.WebSocket;
import org.java_websocket.framing.CloseFrame;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.server.WebSocketServer;

/**
 * A worker of seed 001 that runs no model: a real WebSocket server on a loopback port speaking the worker side of the
 * seed's JSON protocol. It keeps the subscriptions it is given ({@code subscribe}, {@code unsubscribe}), answers
 * {@code requestState}, {@code subscribe} and {@code unsubscribe} with a {@code stateReport}, sends a
 * {@code stateReport} with its CPU and memory every report interval (2 s, as the seed's workers), and emits
 * {@code imageDetection} results for each subscription at a configurable rate.
 *
 * <p>For fault tests it can be {@linkplain #kill() killed} (connections dropped without a close handshake, as when
 * the process dies; its subscriptions are lost like a real worker's), {@linkplain #restart() restarted} on the same
 * port, {@linkplain #setReplyDelay slowed} (every message it sends is delayed) and made to
 * {@linkplain #sendGarbage send garbage}. It records what it receives so tests can assert on it. To test a backend's
 * backpressure and message budget it can {@linkplain #flood(int) flood} it: results and malformed lines as fast as
 * the connection takes them, with a state report every 1,000 messages ({@link Builder#flood(boolean)} keeps doing so
 * while it runs).
 *
 * <p>The testkit cannot use baton-work's codec (baton-work's tests use the testkit), so it reads and writes the JSON
 * itself. Thread-safe. The {@link Listener} is called on the worker's timer thread or the server's thread.
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
         * A report interval passed: {@code detections} results were sent since the last batch, per subscription.
         * Called once per report interval while a backend is connected.
         */
        default void onBatch(Map<String, Long> detections, int subscriptions, int connections) { }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration DETECTION_TICK = Duration.ofMillis(50);
    private static final String[] BRANDS = {"Honda", "Toyota", "Volvo", "Skoda"};

    private final String host;
    private final Duration reportInterval;
    private final double detectionsPerSecond;
    private final int oversizedBytes;
    private final Clock clock;
    private final Listener listener;
    private final ScheduledExecutorService timer;

    private final Map<String, ObjectNode> subscriptions = new ConcurrentHashMap<>();
    private final Map<String, JsonNode> sessions = new ConcurrentHashMap<>();
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final Map<String, Long> batch = new TreeMap<>();
    private final AtomicLong detectionsSent = new AtomicLong();
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLong floodSent = new AtomicLong();
    private final boolean flooding;

    private volatile double cpuUsage = 10.0;
    private volatile double memoryUsage = 20.0;
    private volatile Duration replyDelay = Duration.ZERO;
    private volatile Server server;
    private volatile int port;
    private double credit;
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
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "simulated-worker");
            t.setDaemon(true);
            return t;
        });
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
        timer.scheduleAtFixedRate(this::report, reportMs, reportMs, TimeUnit.MILLISECONDS);
        if (detectionsPerSecond > 0) {
            long tick = DETECTION_TICK.toMillis();
            timer.scheduleAtFixedRate(this::detect, tick, tick, TimeUnit.MILLISECONDS);
        }
        if (flooding) {
            // Each round sends one batch to every connection whose last batch has left (so the worker's own queue
            // stays small) and reschedules itself; a backend that stops reading holds it back through TCP.
            timer.scheduleWithFixedDelay(this::floodRound, 1, 1, TimeUnit.MILLISECONDS);
        }
    }

    private static final int FLOOD_BATCH = 1_000;

    private void floodRound() {
        try {
            Server s = server;
            if (s == null) {
                return;
            }
            for (WebSocket conn : s.getConnections()) {
                if (conn.isOpen() && !conn.hasBufferedData()) {
                    floodBatch(conn, FLOOD_BATCH);
                }
            }
        } catch (RuntimeException e) {
            // keep flooding: a connection closing mid-batch is expected
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
        Server s = server;
        if (s != null) {
            for (WebSocket conn : s.getConnections()) {
                floodBatch(conn, messages);
            }
        }
        return messages;
    }

    /** How many flood messages were sent in all. */
    public long floodSent() {
        return floodSent.get();
    }

    private void floodBatch(WebSocket conn, int messages) {
        List<ObjectNode> subs = new ArrayList<>(subscriptions.values());
        ObjectNode placeholder = JSON.createObjectNode().put("subscriptionIdentifier", "flood;camera")
                .put("modelId", 1).put("modelName", "flood");
        for (int i = 0; i < messages; i++) {
            long n = floodSent.incrementAndGet();
            String text;
            if (n % 1_000 == 0) {
                text = stateReport();
            } else if (n % 10 == 0) {
                text = "{\"type\":\"imageDetection\",\"subscriptionIdentifier\":";
            } else {
                text = detection(subs.isEmpty() ? placeholder : subs.get((int) (n % subs.size())));
            }
            sendNow(conn, text);
        }
    }

    private void bind() {
        Server s = new Server(new InetSocketAddress(host, port));
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
            stopQuietly(s);
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
        this.cpuUsage = cpuUsage;
    }

    /** Sets the memory usage reported from the next state report on. */
    public void setMemoryUsage(double memoryUsage) {
        this.memoryUsage = memoryUsage;
    }

    /** Delays every message it sends by {@code delay}; {@link Duration#ZERO} to stop. */
    public void setReplyDelay(Duration delay) {
        this.replyDelay = Objects.requireNonNull(delay, "delay");
    }

    /** The subscription identifiers it holds now, sorted. */
    public Set<String> subscriptions() {
        return Collections.unmodifiableSet(new java.util.TreeSet<>(subscriptions.keySet()));
    }

    /** The {@code subscribe} payload it holds for {@code subscriptionIdentifier}, as JSON text, or null. */
    public String subscription(String subscriptionIdentifier) {
        ObjectNode payload = subscriptions.get(subscriptionIdentifier);
        return payload == null ? null : payload.toString();
    }

    /** The session set for a display by {@code setSessionId}, as JSON text ({@code "null"} when cleared), or null. */
    public String sessionOf(String displayIdentifier) {
        JsonNode id = sessions.get(displayIdentifier);
        return id == null ? null : id.toString();
    }

    /** Every message received since start, as JSON text, in order of arrival (also across restarts). */
    public List<String> received() {
        return List.copyOf(received);
    }

    /** The {@code type} of every message received, in order; {@code "?"} for text that was not a message. */
    public List<String> receivedTypes() {
        List<String> types = new ArrayList<>();
        for (String json : received) {
            types.add(typeOf(json));
        }
        return types;
    }

    /** How many {@code imageDetection} results it has sent. */
    public long detectionsSent() {
        return detectionsSent.get();
    }

    /** How many backends are connected now. */
    public int connections() {
        Server s = server;
        return s == null ? 0 : s.getConnections().size();
    }

    /** Sends a {@code stateReport} to every connected backend now. */
    public void sendStateReport() {
        broadcast(stateReport());
    }

    /** Sends a {@code patchSession} with {@code dataJson} (any JSON value) to every connected backend. */
    public void sendPatchSession(long sessionId, String dataJson) {
        ObjectNode m = JSON.createObjectNode().put("type", "patchSession").put("sessionId", sessionId);
        try {
            m.set("data", JSON.readTree(dataJson));
        } catch (IOException e) {
            throw new IllegalArgumentException("dataJson is not JSON: " + dataJson, e);
        }
        broadcast(m.toString());
    }

    /** Sends one piece of {@code garbage} to every connected backend. */
    public void sendGarbage(Garbage garbage) {
        broadcast(switch (garbage) {
            case MALFORMED_JSON -> "{\"type\":\"stateReport\",\"cpuUsage\":";
            case UNKNOWN_TYPE -> "{\"type\":\"hello\",\"from\":\"simulated-worker\"}";
            case OVERSIZED -> oversized();
        });
    }

    /** A well-formed patchSession of exactly {@code oversizedBytes} bytes (or its smallest form if that is less). */
    private String oversized() {
        String head = "{\"type\":\"patchSession\",\"sessionId\":1,\"data\":\"";
        String tail = "\"}";
        return head + "x".repeat(Math.max(0, oversizedBytes - head.length() - tail.length())) + tail;
    }

    /**
     * Dies as a crashed process does: every connection is dropped without a close handshake, the port is closed, and
     * the subscriptions are forgotten. {@link #restart()} brings it back on the same port.
     */
    public void kill() {
        Server s;
        synchronized (this) {
            s = server;
            server = null;
            subscriptions.clear();
            sessions.clear();
        }
        if (s != null) {
            for (WebSocket conn : s.getConnections()) {
                conn.closeConnection(CloseFrame.ABNORMAL_CLOSE, "worker killed");
            }
            stopQuietly(s);
        }
    }

    /** Starts listening again on the same port after {@link #kill()}, with no subscriptions, as a restarted worker. */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (server != null) {
            throw new IllegalStateException("still running: kill() it first");
        }
        bind();
    }

    /** Stops it for good: connections closed normally, timers stopped. */
    @Override
    public void close() {
        Server s;
        synchronized (this) {
            closed = true;
            s = server;
            server = null;
        }
        timer.shutdownNow();
        if (s != null) {
            stopQuietly(s);
        }
    }

    private static void stopQuietly(Server s) {
        try {
            s.stop(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- protocol

    private void onMessage(WebSocket conn, String text) {
        received.add(text);
        listener.onCommand(text);
        JsonNode message;
        try {
            message = JSON.readTree(text);
        } catch (IOException e) {
            return; // a worker ignores what it cannot read
        }
        JsonNode payload = message.path("payload");
        switch (message.path("type").asText("")) {
            case "subscribe" -> {
                String id = payload.path("subscriptionIdentifier").asText(null);
                if (id != null && payload instanceof ObjectNode p) {
                    subscriptions.put(id, p.deepCopy());
                }
                send(conn, stateReport());
            }
            case "unsubscribe" -> {
                subscriptions.remove(payload.path("subscriptionIdentifier").asText(""));
                send(conn, stateReport());
            }
            case "requestState" -> send(conn, stateReport());
            case "setSessionId" -> {
                String display = payload.path("displayIdentifier").asText(null);
                if (display != null) {
                    sessions.put(display, payload.path("sessionId"));
                }
            }
            default -> { } // patchSessionResult and anything else: recorded, no answer
        }
    }

    private String stateReport() {
        ObjectNode m = JSON.createObjectNode().put("type", "stateReport").put("cpuUsage", cpuUsage)
                .put("memoryUsage", memoryUsage);
        ArrayNode connections = m.putArray("cameraConnections");
        for (ObjectNode s : new TreeMap<>(subscriptions).values()) {
            ObjectNode c = connections.addObject();
            c.put("subscriptionIdentifier", s.path("subscriptionIdentifier").asText());
            c.set("modelId", s.path("modelId"));
            c.put("modelName", s.path("modelName").asText(""));
            c.put("online", true);
            if (s.hasNonNull("cropX1")) {
                c.set("cropX", s.get("cropX1"));
            }
            if (s.hasNonNull("cropY1")) {
                c.set("cropY", s.get("cropY1"));
            }
        }
        return m.toString();
    }

    private String detection(ObjectNode subscription) {
        long n = sequence.incrementAndGet();
        ObjectNode m = JSON.createObjectNode().put("type", "imageDetection")
                .put("subscriptionIdentifier", subscription.path("subscriptionIdentifier").asText())
                .put("timestamp", clock.instant().toString());
        ObjectNode data = m.putObject("data");
        data.putObject("detection").put("carBrand", BRANDS[(int) (n % BRANDS.length)]).put("carModel", "Model " + n % 7)
                .put("carYear", 2015 + (int) (n % 10)).put("bodyType", n % 2 == 0 ? "sedan" : "suv")
                .put("licensePlateText", "SIM-" + n).put("licensePlateType", "simulated");
        data.set("modelId", subscription.path("modelId"));
        data.put("modelName", subscription.path("modelName").asText(""));
        return m.toString();
    }

    private void report() {
        try {
            Server s = server;
            if (s == null || s.getConnections().isEmpty()) {
                return;
            }
            broadcast(stateReport());
            Map<String, Long> sent;
            synchronized (batch) {
                sent = new LinkedHashMap<>(batch);
                batch.clear();
            }
            listener.onBatch(sent, subscriptions.size(), s.getConnections().size());
        } catch (RuntimeException e) {
            // keep the timer alive: a listener's failure must not stop the reports
        }
    }

    private void detect() {
        try {
            Server s = server;
            if (s == null || s.getConnections().isEmpty() || subscriptions.isEmpty()) {
                credit = 0;
                return;
            }
            credit += detectionsPerSecond * DETECTION_TICK.toMillis() / 1000.0;
            int count = (int) credit;
            credit -= count;
            for (int i = 0; i < count; i++) {
                for (ObjectNode subscription : subscriptions.values()) {
                    broadcast(detection(subscription));
                    detectionsSent.incrementAndGet();
                    synchronized (batch) {
                        batch.merge(subscription.path("subscriptionIdentifier").asText(), 1L, Long::sum);
                    }
                }
            }
        } catch (RuntimeException e) {
            // keep the timer alive
        }
    }

    private void broadcast(String text) {
        Server s = server;
        if (s != null) {
            for (WebSocket conn : s.getConnections()) {
                send(conn, text);
            }
        }
    }

    private void send(WebSocket conn, String text) {
        Duration delay = replyDelay;
        if (delay.isZero()) {
            sendNow(conn, text);
        } else {
            try {
                timer.schedule(() -> sendNow(conn, text), delay.toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // closed
            }
        }
    }

    private static void sendNow(WebSocket conn, String text) {
        if (conn.isOpen()) {
            try {
                conn.send(text);
            } catch (RuntimeException e) {
                // the connection closed between the check and the send
            }
        }
    }

    private static String typeOf(String json) {
        try {
            return JSON.readTree(json).path("type").asText("?");
        } catch (IOException e) {
            return "?";
        }
    }

    private final class Server extends WebSocketServer {
        final CountDownLatch started = new CountDownLatch(1);
        volatile Exception failure;

        Server(InetSocketAddress address) {
            super(address, 1);
        }

        @Override
        public void onOpen(WebSocket conn, ClientHandshake handshake) { }

        @Override
        public void onClose(WebSocket conn, int code, String reason, boolean remote) { }

        @Override
        public void onMessage(WebSocket conn, String message) {
            SimulatedWorker.this.onMessage(conn, message);
        }

        @Override
        public void onError(WebSocket conn, Exception ex) {
            if (conn == null) {
                failure = ex;
                started.countDown();
            }
        }

        @Override
        public void onStart() {
            started.countDown();
        }
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

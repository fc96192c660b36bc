package dev.baton.peer.transport;

import dev.baton.core.time.Clock;
import dev.baton.peer.transport.internal.NettyConnections;
import dev.baton.peer.transport.internal.RateLimitedLog;
import dev.baton.peer.transport.internal.TransportCounters;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production {@link Transport}: TCP with Netty, one connection per pair of nodes, framed messages, a versioned
 * handshake (seed 003's active/passive greet) and optional shared-secret authentication. See {@code docs/peer.md}
 * for the wire format.
 *
 * <pre>{@code
 * NettyTransport<QuorumMessage> transport = NettyTransport.builder(JacksonMessageCodec.forSealed(QuorumMessage.class))
 *         .listen(PeerAddress.parse("10.0.0.5:7400"))
 *         .clusterName("orders")
 *         .sharedSecret(Files.readAllBytes(secretFile))
 *         .build();
 * transport.setHandler((from, message) -> scheduler.execute(() -> machine.onMessage(from, message)));
 * transport.start();
 * }</pre>
 *
 * <p><b>Lifecycle.</b> {@link Builder#build()} creates it (no thread, no socket); {@link #start()} binds and may run once;
 * {@link #close()} closes every connection, telling each peer why, and stops the event loops; it waits for them
 * (up to five seconds) unless called from a transport thread.
 *
 * <p><b>Faults.</b> A peer that sends garbage, an oversized frame, an unknown frame type, a greet of another cluster or
 * protocol version, DATA before the handshake, a payload the codec refuses, or fails authentication has its
 * connection closed with a WARN line (rate-limited; it names the peer and the socket address) and a counter in
 * {@link TransportStats#rejected(RejectReason)}; the node and its other connections go on.
 *
 * <p><b>Limits.</b> What the network can make a node hold is bounded. Until its handshake completes a connection may
 * send frames of at most 4 KiB and must complete the handshake within {@link Builder#handshakeTimeout}; at most
 * {@link Builder#maxPendingHandshakes} inbound connections may be in that state, further ones are refused at once.
 * After the handshake, frames may be {@link Builder#maxFrameSize} long. Input is buffered as it arrives (an announced
 * length allocates nothing), and a frame left incomplete for {@link Builder#frameTimeout} closes the connection.
 *
 * @param <M> the protocol's message type
 */
public final class NettyTransport<M> implements Transport<M> {

    private static final Logger log = LoggerFactory.getLogger(NettyTransport.class);

    /** Where a transport stands in its life. */
    public enum State { CREATED, STARTED, CLOSED }

    private final Builder<M> config;
    private final MessageCodec<M> codec;
    private final TransportCounters counters = new TransportCounters();
    private final NettyConnections connections;
    private final RateLimitedLog handlerErrors;
    private volatile MessageHandler<M> handler;
    private volatile State state = State.CREATED;
    private volatile PeerAddress local;

    private NettyTransport(Builder<M> config) {
        this.config = config.copy();
        this.codec = config.codec;
        this.connections = new NettyConnections(new NettyConnections.Settings(
                config.bindHost, config.bindPort, config.advertise, config.clusterName, config.maxFrameSize,
                config.sharedSecret == null ? null : config.sharedSecret.clone(), config.connectTimeout,
                config.handshakeTimeout, config.frameTimeout, config.maxPendingHandshakes, config.sendQueueBound, config.workerThreads, config.clock),
                counters, this::deliver);
        this.handlerErrors = new RateLimitedLog(log, config.clock, Duration.ofSeconds(10), 5);
        this.local = config.advertise != null ? config.advertise
                : config.bindPort != 0 ? new PeerAddress(config.bindHost, config.bindPort) : null;
    }

    /** A builder for a transport that encodes messages with {@code codec}. */
    public static <M> Builder<M> builder(MessageCodec<M> codec) {
        return new Builder<>(codec);
    }

    /** A builder holding this transport's configuration, for a variation (another port, say). */
    public Builder<M> toBuilder() {
        return config.copy();
    }

    /**
     * Listens and starts the event loops. Returns this transport.
     *
     * @throws IllegalStateException if already started or closed, or if the address cannot be bound
     */
    public synchronized NettyTransport<M> start() {
        if (state != State.CREATED) {
            throw new IllegalStateException("start() may run once; transport is " + state);
        }
        local = connections.start();
        state = State.STARTED;
        log.info("Peer transport of cluster '{}' listening on {}:{} as {}{}", config.clusterName, config.bindHost,
                local.port(), local, config.sharedSecret == null ? "" : " (shared-secret authentication)");
        return this;
    }

    /** Where the transport stands. */
    public State state() {
        return state;
    }

    /** The cluster name sent in every greet. */
    public String clusterName() {
        return config.clusterName;
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException before {@link #start()} when the configured port is 0 (chosen at start)
     */
    @Override
    public PeerAddress local() {
        PeerAddress address = local;
        if (address == null) {
            throw new IllegalStateException("the listen port is chosen at start(): start the transport first");
        }
        return address;
    }

    @Override
    public void send(PeerAddress to, M message) {
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(message, "message");
        State current = state;
        if (current == State.CREATED) {
            throw new IllegalStateException("send() before start()");
        }
        byte[] payload = codec.encode(message);
        if (payload.length + 1 > config.maxFrameSize) {
            throw new IllegalArgumentException(message.getClass().getSimpleName() + " encodes to " + payload.length
                    + " bytes, more than the frame limit of " + config.maxFrameSize + " (maxFrameSize)");
        }
        if (current == State.CLOSED) {
            counters.dropped(DropReason.CLOSED);
            return;
        }
        if (to.equals(local)) {
            try {
                connections.execute(() -> handOver(to, message));
                counters.sent();
            } catch (java.util.concurrent.RejectedExecutionException e) {
                counters.dropped(DropReason.CLOSED); // closed concurrently
            }
            return;
        }
        connections.send(to, payload);
    }

    private void deliver(PeerAddress from, byte[] payload) throws MalformedMessageException {
        handOver(from, codec.decode(payload));
    }

    private void handOver(PeerAddress from, M message) {
        MessageHandler<M> h = handler;
        if (h == null || state == State.CLOSED) {
            counters.dropped(h == null ? DropReason.NO_HANDLER : DropReason.CLOSED);
            return;
        }
        counters.received();
        try {
            h.onMessage(from, message);
        } catch (RuntimeException e) {
            handlerErrors.warn("handler", "Message handler failed on " + message.getClass().getSimpleName() + " from "
                    + from + ": " + e);
            log.debug("Message handler failure", e);
        }
    }

    @Override
    public void setHandler(MessageHandler<M> handler) {
        this.handler = handler;
    }

    @Override
    public TransportStats stats() {
        return counters.snapshot();
    }

    @Override
    public void close() {
        State previous;
        synchronized (this) {
            previous = state;
            state = State.CLOSED;
        }
        if (previous == State.CLOSED) {
            return;
        }
        connections.close(Duration.ofSeconds(5));
        if (previous == State.STARTED) {
            log.info("Peer transport {} closed", local);
        }
    }

    @Override
    public String toString() {
        return "NettyTransport[" + (local == null ? config.bindHost + ":0" : local) + ", cluster=" + config.clusterName
                + ", " + state + "]";
    }

    /**
     * Configuration of a {@link NettyTransport}. Every setter documents its default; {@link #build()} checks every
     * value and names the field in its message.
     */
    public static final class Builder<M> {
        private final MessageCodec<M> codec;
        private String bindHost;
        private int bindPort = -1;
        private PeerAddress advertise;
        private String clusterName;
        private int maxFrameSize = 1 << 20;
        private byte[] sharedSecret;
        private Duration connectTimeout = Duration.ofSeconds(2);
        private Duration handshakeTimeout = Duration.ofSeconds(5);
        private Duration frameTimeout = Duration.ofSeconds(10);
        private int maxPendingHandshakes = 64;
        private int sendQueueBound = 1024;
        private int workerThreads = 1;
        private Clock clock = Clock.system();

        private Builder(MessageCodec<M> codec) {
            this.codec = Objects.requireNonNull(codec, "codec");
        }

        private Builder<M> copy() {
            Builder<M> b = new Builder<>(codec);
            b.bindHost = bindHost;
            b.bindPort = bindPort;
            b.advertise = advertise;
            b.clusterName = clusterName;
            b.maxFrameSize = maxFrameSize;
            b.sharedSecret = sharedSecret == null ? null : sharedSecret.clone();
            b.connectTimeout = connectTimeout;
            b.handshakeTimeout = handshakeTimeout;
            b.frameTimeout = frameTimeout;
            b.maxPendingHandshakes = maxPendingHandshakes;
            b.sendQueueBound = sendQueueBound;
            b.workerThreads = workerThreads;
            b.clock = clock;
            return b;
        }

        /** Required: the address to listen on, which is also this node's address unless {@link #advertise} is set. */
        public Builder<M> listen(PeerAddress address) {
            return listen(address.host(), address.port());
        }

        /**
         * Required: host and port to listen on. Port 0 picks a free port at {@link NettyTransport#start()} (tests);
         * a wildcard host ({@code 0.0.0.0}, {@code ::}) needs {@link #advertise}.
         */
        public Builder<M> listen(String host, int port) {
            this.bindHost = Objects.requireNonNull(host, "host");
            this.bindPort = port;
            return this;
        }

        /**
         * The address peers know this node by, when it differs from the listen address (listening on 0.0.0.0, or
         * behind a port mapping). Default: the listen address.
         */
        public Builder<M> advertise(PeerAddress address) {
            this.advertise = address;
            return this;
        }

        /** Required: the cluster name; a greet from another cluster is refused. 1 to 255 UTF-8 bytes. */
        public Builder<M> clusterName(String name) {
            this.clusterName = name;
            return this;
        }

        /**
         * Largest frame accepted or sent, in bytes, counting the type byte and the payload (not the 4-byte length).
         * Default 1 MiB; 1 KiB to 64 MiB. It applies once a connection's handshake has completed; until then a
         * connection may send frames of at most 4 KiB, whatever this is.
         */
        public Builder<M> maxFrameSize(int bytes) {
            this.maxFrameSize = bytes;
            return this;
        }

        /**
         * A secret every node of the cluster shares, for mutual HMAC-SHA256 authentication; at least 16 bytes (e.g.
         * 32 random bytes from a file). Default: none. A node with a secret and one without cannot connect.
         */
        public Builder<M> sharedSecret(byte[] secret) {
            this.sharedSecret = secret == null ? null : secret.clone();
            return this;
        }

        /** Longest wait for a TCP connect. Default 2 s; 10 ms to 1 min. */
        public Builder<M> connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        /**
         * Longest time from TCP connect to a completed handshake (and authentication) before the connection is closed,
         * whether the peer sent nothing, a few bytes at a time, or part of a frame. Default 5 s; 10 ms to 5 min.
         */
        public Builder<M> handshakeTimeout(Duration timeout) {
            this.handshakeTimeout = timeout;
            return this;
        }

        /**
         * Longest time a frame may stay incomplete (its first bytes arrived, its last not) before the connection is
         * closed, on any connection, handshake done or not: a peer cannot hold a large buffer by withholding a frame's
         * last byte. Default 10 s; 10 ms to 5 min.
         */
        public Builder<M> frameTimeout(Duration timeout) {
            this.frameTimeout = timeout;
            return this;
        }

        /**
         * Most inbound connections that may be in their handshake at once; one more is closed as soon as it is
         * accepted (counted as {@link RejectReason#TOO_MANY_PENDING}). With the 4 KiB frame limit before the
         * handshake, this bounds what strangers can make the node buffer. Connections this node opens, and connections
         * past their handshake, do not count. Default 64; 1 to 100000.
         */
        public Builder<M> maxPendingHandshakes(int connections) {
            this.maxPendingHandshakes = connections;
            return this;
        }

        /** Messages queued per peer while its connection is being set up; beyond it, dropped. Default 1024. */
        public Builder<M> sendQueueBound(int messages) {
            this.sendQueueBound = messages;
            return this;
        }

        /** Netty event-loop threads (accept, I/O, and the message handler). Default 1; 1 to 64. */
        public Builder<M> workerThreads(int threads) {
            this.workerThreads = threads;
            return this;
        }

        /** The clock for log rate limits. Default {@link Clock#system()}. */
        public Builder<M> clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Validates the configuration and creates the transport (not started). */
        public NettyTransport<M> build() {
            if (bindHost == null || bindHost.isBlank()) {
                throw new IllegalArgumentException("listen address must be set");
            }
            if (bindPort < 0 || bindPort > 65535) {
                throw new IllegalArgumentException("listen port must be within 0..65535, was " + bindPort);
            }
            if (advertise == null) {
                if (bindHost.equals("0.0.0.0") || bindHost.equals("::") || bindHost.equals("[::]")) {
                    throw new IllegalArgumentException("advertise must be set when listening on the wildcard address "
                            + bindHost + ": peers need an address they can dial");
                }
                new PeerAddress(bindHost, bindPort == 0 ? 1 : bindPort); // validates the host
            }
            if (clusterName == null || clusterName.isEmpty()) {
                throw new IllegalArgumentException("clusterName must be set");
            }
            if (clusterName.getBytes(StandardCharsets.UTF_8).length > 255) {
                throw new IllegalArgumentException("clusterName must be at most 255 UTF-8 bytes");
            }
            if (maxFrameSize < 1024 || maxFrameSize > 64 << 20) {
                throw new IllegalArgumentException("maxFrameSize must be within 1024..67108864 bytes, was " + maxFrameSize);
            }
            if (sharedSecret != null && sharedSecret.length < 16) {
                throw new IllegalArgumentException("sharedSecret must be at least 16 bytes, was " + sharedSecret.length);
            }
            requireWithin("connectTimeout", connectTimeout, Duration.ofMillis(10), Duration.ofMinutes(1));
            requireWithin("handshakeTimeout", handshakeTimeout, Duration.ofMillis(10), Duration.ofMinutes(5));
            requireWithin("frameTimeout", frameTimeout, Duration.ofMillis(10), Duration.ofMinutes(5));
            if (maxPendingHandshakes < 1 || maxPendingHandshakes > 100_000) {
                throw new IllegalArgumentException("maxPendingHandshakes must be within 1..100000, was "
                        + maxPendingHandshakes);
            }
            if (sendQueueBound < 1 || sendQueueBound > 1_000_000) {
                throw new IllegalArgumentException("sendQueueBound must be within 1..1000000, was " + sendQueueBound);
            }
            if (workerThreads < 1 || workerThreads > 64) {
                throw new IllegalArgumentException("workerThreads must be within 1..64, was " + workerThreads);
            }
            return new NettyTransport<>(this);
        }

        private static void requireWithin(String field, Duration value, Duration min, Duration max) {
            if (value == null) {
                throw new IllegalArgumentException(field + " must be set");
            }
            if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
                throw new IllegalArgumentException(field + " must be within " + min.toMillis() + " ms.." + max.toMillis()
                        + " ms, was " + value.toMillis() + " ms");
            }
        }
    }
}

package dev.baton.peer.quorum;

import dev.baton.core.Capabilities;
import dev.baton.core.NodeInfo;
import dev.baton.core.time.Clock;
import dev.baton.core.time.ExecutorScheduler;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.MemberCard;
import dev.baton.peer.transport.JacksonMessageCodec;
import dev.baton.peer.transport.NettyTransport;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.Executor;

/**
 * The front door of the serverless backend: builds a {@link QuorumElection} and wires it to real threads and time
 * (the thin driver around the pure state machine).
 *
 * <pre>{@code
 * QuorumConfig config = QuorumConfig.fast()
 *         .clusterSize(3)
 *         .seeds(PeerAddress.parse("10.0.0.5:7400"), PeerAddress.parse("10.0.0.6:7400"))
 *         .build();
 * try (QuorumElection election = Quorum.tcp(PeerAddress.parse("10.0.0.5:7400"))
 *         .group("orders")                       // the cluster name, checked in every handshake
 *         .config(config)
 *         .dataDir(Path.of("/var/lib/baton"))    // the votes survive a restart
 *         .sharedSecret(secret)                  // optional
 *         .build()) {
 *     election.addListener(event -> ...);
 *     election.start();
 *     ...
 * }
 * }</pre>
 *
 * <p>{@link #tcp(PeerAddress)} owns a {@link NettyTransport} (bound when {@code build()} returns, closed after the
 * election closes); {@link #election(Transport)} runs over a transport the caller owns (e.g. the simulated network).
 * Without a data directory (or {@link Builder#durableState}) the votes live in memory, so every restart is a start
 * without saved state, which is safe but must recover from other nodes before it votes.
 */
public final class Quorum {

    private Quorum() {
    }

    /** The codec of the quorum protocol's messages. */
    public static JacksonMessageCodec<QuorumMessage> codec() {
        return JacksonMessageCodec.forSealed(QuorumMessage.class);
    }

    /** An election over {@code transport}, which the caller starts before the election and closes after it. */
    public static Builder election(Transport<QuorumMessage> transport) {
        return new Builder(Objects.requireNonNull(transport, "transport"), null);
    }

    /** An election over its own TCP transport listening on {@code listen}. */
    public static Builder tcp(PeerAddress listen) {
        return new Builder(null, Objects.requireNonNull(listen, "listen"));
    }

    /** Builds a {@link QuorumElection}. {@link #group(String)} and {@link #config(QuorumConfig)} are required. */
    public static final class Builder {
        private final Transport<QuorumMessage> transport;
        private final PeerAddress listen;
        private String group;
        private QuorumConfig config;
        private NodeInfo node;
        private DurableState durable;
        private Path dataDir;
        private byte[] sharedSecret;
        private PeerAddress advertise;
        private Clock clock = Clock.system();
        private Scheduler scheduler;
        private Executor eventExecutor;
        private Random random;

        private Builder(Transport<QuorumMessage> transport, PeerAddress listen) {
            this.transport = transport;
            this.listen = listen;
        }

        /** The cluster's name (the election group); required. Over TCP it is also the handshake's cluster name. */
        public Builder group(String name) {
            this.group = name;
            return this;
        }

        /** Cluster size, seeds and timings; required. */
        public Builder config(QuorumConfig value) {
            this.config = Objects.requireNonNull(value, "config");
            return this;
        }

        /**
         * How this node describes itself (identifier, API address, capabilities, metadata). Its id is replaced: a
         * quorum node's id is its peer address. Default: identifier {@code baton}.
         */
        public Builder node(NodeInfo self) {
            this.node = Objects.requireNonNull(self, "node");
            return this;
        }

        /** Keep the votes in {@value FileDurableState#FILE_NAME} under {@code directory}. */
        public Builder dataDir(Path directory) {
            this.dataDir = Objects.requireNonNull(directory, "dataDir");
            return this;
        }

        /** Keep the votes here instead (tests); overrides {@link #dataDir}. */
        public Builder durableState(DurableState value) {
            this.durable = Objects.requireNonNull(value, "durableState");
            return this;
        }

        /** TCP only: authenticate peers with this shared secret (at least 16 bytes). */
        public Builder sharedSecret(byte[] secret) {
            this.sharedSecret = secret == null ? null : secret.clone();
            return this;
        }

        /** TCP only: the address peers know this node by, when it differs from the listen address. */
        public Builder advertise(PeerAddress address) {
            this.advertise = address;
            return this;
        }

        /** Time source; default {@link Clock#system()}. */
        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        /** Scheduler for the state machine; default: a dedicated thread, stopped when the election closes. */
        public Builder scheduler(Scheduler value) {
            this.scheduler = value;
            return this;
        }

        /** Default executor for listeners; default: a dedicated event thread, stopped when the election closes. */
        public Builder eventExecutor(Executor value) {
            this.eventExecutor = value;
            return this;
        }

        /** Source of randomness (probe helpers, retry pauses, ids); default: seeded from {@link SecureRandom}. */
        public Builder random(Random value) {
            this.random = value;
            return this;
        }

        /**
         * Builds the election; over TCP the transport is bound when this returns.
         *
         * @throws IllegalArgumentException if the group or the configuration is missing
         * @throws IllegalStateException if the TCP port cannot be bound
         */
        public QuorumElection build() {
            if (group == null || group.isBlank()) {
                throw new IllegalArgumentException("group must be set");
            }
            if (config == null) {
                throw new IllegalArgumentException("config must be set (cluster size, seeds and timings)");
            }
            NettyTransport<QuorumMessage> ownTransport = null;
            Transport<QuorumMessage> wire = transport;
            if (wire == null) {
                NettyTransport.Builder<QuorumMessage> tcp = NettyTransport.builder(codec()).listen(listen)
                        .clusterName(group);
                if (advertise != null) {
                    tcp.advertise(advertise);
                }
                if (sharedSecret != null) {
                    tcp.sharedSecret(sharedSecret);
                }
                ownTransport = tcp.build();
                wire = ownTransport;
            }
            NodeInfo self = node != null ? node : NodeInfo.of("baton", "baton");
            MemberCard card = new MemberCard(self.identifier(), self.apiAddress(),
                    self.capabilities() != null ? self.capabilities() : Capabilities.DEFAULT, self.metadata());
            DurableState state = durable != null ? durable
                    : dataDir != null ? new FileDurableState(dataDir) : new InMemoryDurableState();
            ExecutorScheduler ownScheduler = scheduler == null ? new ExecutorScheduler("quorum-" + group) : null;
            ExecutorScheduler ownEvents = eventExecutor == null ? new ExecutorScheduler("events-" + group) : null;
            NettyTransport<QuorumMessage> closeTransport = ownTransport;
            Runnable afterClose = () -> {
                if (closeTransport != null) {
                    closeTransport.close();
                }
                if (ownEvents != null) {
                    // Let already-queued events reach listeners before the thread stops.
                    ownEvents.execute(() -> ownEvents.close(Duration.ZERO));
                }
                if (ownScheduler != null) {
                    ownScheduler.execute(() -> ownScheduler.close(Duration.ZERO));
                }
            };
            try {
                if (ownTransport != null) {
                    ownTransport.start();
                }
                return new QuorumElection(group, card, config, wire, state, clock,
                        ownScheduler != null ? ownScheduler : scheduler,
                        random != null ? random : new Random(new SecureRandom().nextLong()),
                        ownEvents != null ? ownEvents::execute : eventExecutor, afterClose);
            } catch (RuntimeException e) {
                if (ownTransport != null) {
                    ownTransport.close();
                }
                if (ownScheduler != null) {
                    ownScheduler.close(Duration.ZERO);
                }
                if (ownEvents != null) {
                    ownEvents.close(Duration.ZERO);
                }
                throw e;
            }
        }
    }
}

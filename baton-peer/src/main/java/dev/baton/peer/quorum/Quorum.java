package dev.baton.peer.quorum;

import dev.baton.core.ElectionMetrics;
import dev.baton.peer.internal.PeerBuilder;
import dev.baton.peer.internal.PeerWiring;
import dev.baton.peer.transport.JacksonMessageCodec;
import dev.baton.peer.transport.NettyTransport;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.nio.file.Path;
import java.util.Objects;

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
    public static final class Builder extends PeerBuilder<Builder, QuorumMessage> {
        private QuorumConfig config;
        private DurableState durable;
        private Path dataDir;
        private ElectionMetrics metrics = ElectionMetrics.NONE;

        private Builder(Transport<QuorumMessage> transport, PeerAddress listen) {
            super(transport, listen);
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** Cluster size, seeds and timings; required. */
        public Builder config(QuorumConfig value) {
            this.config = Objects.requireNonNull(value, "config");
            return this;
        }

        /** Keep the votes in {@value FileDurableState#FILE_NAME} under {@code directory}. */
        public Builder dataDir(Path directory) {
            this.dataDir = Objects.requireNonNull(directory, "dataDir");
            return this;
        }

        /**
         * Keep the votes here instead (tests); overrides {@link #dataDir}. An {@link InMemoryDurableState} is written
         * on the election's scheduler; any other state on a writer thread of the node's own, with the votes that
         * depend on a write held back until it completes.
         */
        public Builder durableState(DurableState value) {
            this.durable = Objects.requireNonNull(value, "durableState");
            return this;
        }

        /**
         * Where to report the leadership's local deadline ({@link ElectionMetrics#validUntil}): once when this node's
         * term begins and again each time a majority's acknowledgements move it, on the election's scheduler thread,
         * before the new deadline takes effect. The protocol makes no store calls and has no renewals, so the other
         * callbacks are not called. Default: nowhere.
         */
        public Builder metrics(ElectionMetrics value) {
            this.metrics = Objects.requireNonNull(value, "metrics");
            return this;
        }

        /**
         * Builds the election; over TCP the transport is bound when this returns.
         *
         * @throws IllegalArgumentException if the group or the configuration is missing
         * @throws IllegalStateException if the TCP port cannot be bound
         */
        public QuorumElection build() {
            String group = requireGroup();
            if (config == null) {
                throw new IllegalArgumentException("config must be set (cluster size, seeds and timings)");
            }
            DurableState state = durable != null ? durable
                    : dataDir != null ? new FileDurableState(dataDir) : new InMemoryDurableState();
            PeerWiring<QuorumMessage> wiring = wire(codec(), "quorum-");
            try {
                return configure(new QuorumElection(group, card(), config, wiring.transport(), state,
                        Effects::forState, clock(), wiring.scheduler(), wiring.random(), wiring.eventExecutor(),
                        metrics, wiring.afterClose()));
            } catch (RuntimeException e) {
                wiring.abort();
                throw e;
            }
        }
    }
}

package dev.baton.peer.bully;

import dev.baton.core.ElectionMetrics;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.peer.internal.PeerBuilder;
import dev.baton.peer.internal.PeerWiring;
import dev.baton.peer.transport.JacksonMessageCodec;
import dev.baton.peer.transport.NettyTransport;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.util.Objects;

/**
 * The front door of the bully backend (seed 004): builds a {@link BullyElection} and wires it to real threads and time
 * (the thin driver around the pure state machine).
 *
 * <pre>{@code
 * try (FileLeaderStore store = new FileLeaderStore(Path.of("/var/lib/baton/leader.json"));
 *      BullyElection election = Bully.tcp(PeerAddress.parse("10.0.0.5:7400"))
 *              .group("orders")                        // the group: the store's key and the handshake's cluster name
 *              .config(BullyConfig.fast().build())
 *              .leaderStore(store)                     // or RedisStore / PostgresStore, or .standalone()
 *              .sharedSecret(secret)                   // optional
 *              .build()) {
 *     election.addListener(event -> ...);
 *     election.start();
 *     ...
 * }
 * }</pre>
 *
 * <p>{@link #tcp(PeerAddress)} owns a {@link NettyTransport} (bound when {@code build()} returns, closed after the
 * election closes); {@link #election(Transport)} runs over a transport the caller owns (e.g. the simulated network).
 * The leader store given to {@link Builder#leaderStore} stays the caller's to close, after the election.
 */
public final class Bully {

    private Bully() {
    }

    /** The codec of the bully protocol's messages. */
    public static JacksonMessageCodec<BullyMessage> codec() {
        return JacksonMessageCodec.forSealed(BullyMessage.class);
    }

    /** An election over {@code transport}, which the caller starts before the election and closes after it. */
    public static Builder election(Transport<BullyMessage> transport) {
        return new Builder(Objects.requireNonNull(transport, "transport"), null);
    }

    /** An election over its own TCP transport listening on {@code listen}. */
    public static Builder tcp(PeerAddress listen) {
        return new Builder(null, Objects.requireNonNull(listen, "listen"));
    }

    /**
     * Builds a {@link BullyElection}. {@link #group(String)}, {@link #config(BullyConfig)} and a leader store
     * ({@link #leaderStore} or {@link #standalone()}) are required.
     */
    public static final class Builder extends PeerBuilder<Builder, BullyMessage> {
        private BullyConfig config;
        private LeaderRecordStore store;
        private boolean ownStore;
        private ElectionMetrics metrics = ElectionMetrics.NONE;

        private Builder(Transport<BullyMessage> transport, PeerAddress listen) {
            super(transport, listen);
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** Timings; required. */
        public Builder config(BullyConfig value) {
            this.config = Objects.requireNonNull(value, "config");
            return this;
        }

        /**
         * Where the group's leader record lives (seed 004's {@code GMLeaderSetterGetter}): a {@link FileLeaderStore},
         * a {@code RedisStore} or {@code PostgresStore}, or any other implementation. The caller closes it after the
         * election. A {@link StandaloneLeaderStore} means stand-alone mode (see {@link #standalone()}).
         */
        public Builder leaderStore(LeaderRecordStore value) {
            this.store = Objects.requireNonNull(value, "leaderStore");
            this.ownStore = false;
            return this;
        }

        /**
         * Stand-alone mode (seed: "self == leader"): the leader record stays in this process, the node founds its
         * group at once and leads it alone; no other process can find it.
         */
        public Builder standalone() {
            this.store = new StandaloneLeaderStore();
            this.ownStore = true;
            return this;
        }

        /**
         * Where to report the leadership's local deadline ({@link ElectionMetrics#validUntil}): once when this node's
         * term begins and again each time a read of the leader store confirms the term and moves it, on the
         * election's scheduler thread, before the new deadline takes effect. The other callbacks are not called.
         * Default: nowhere.
         */
        public Builder metrics(ElectionMetrics value) {
            this.metrics = Objects.requireNonNull(value, "metrics");
            return this;
        }

        /**
         * Builds the election; over TCP the transport is bound when this returns.
         *
         * @throws IllegalArgumentException if the group, the configuration or the leader store is missing
         * @throws IllegalStateException if the TCP port cannot be bound
         */
        public BullyElection build() {
            String group = requireGroup();
            if (config == null) {
                throw new IllegalArgumentException("config must be set (BullyConfig.defaults() or fast())");
            }
            if (store == null) {
                throw new IllegalArgumentException("a leader store must be set (leaderStore(...) or standalone())");
            }
            PeerWiring<BullyMessage> wiring = wire(codec(), "bully-");
            if (ownStore) {
                wiring.alsoRelease(store);
            }
            try {
                return configure(new BullyElection(group, card(), config, wiring.transport(), store,
                        store instanceof StandaloneLeaderStore, clock(), wiring.scheduler(), wiring.random(),
                        wiring.eventExecutor(), metrics, wiring.afterClose()));
            } catch (RuntimeException e) {
                wiring.abort();
                throw e;
            }
        }
    }
}

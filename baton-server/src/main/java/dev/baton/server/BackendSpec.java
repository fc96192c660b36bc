package dev.baton.server;

import dev.baton.core.ElectionConfig;
import dev.baton.peer.bully.BullyConfig;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.transport.PeerAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Which backend a {@code baton node} runs on, with that backend's own validated settings: what the flags said, before
 * anything is opened. {@link Backends#open} turns it into a running {@link NodeBackend}.
 *
 * <p>A new backend adds a record here, a branch in {@link Backends#open}, its fields in
 * {@link EventJson#nodeStarted}, and the flags that produce it in {@link NodeCommand}.
 */
sealed interface BackendSpec {

    /** The {@code --backend} value as the node-started line and the logs may show it (never a password). */
    String label();

    /**
     * A {@link dev.baton.core.store.CoordinationStore}: {@code memory}, {@code redis://…} or
     * {@code postgresql://…}, with the lease election's timing.
     *
     * @param uri    the {@code --backend} value as given; may contain a password, never print it
     * @param config the validated lease timing
     */
    record Store(String uri, ElectionConfig config) implements BackendSpec {

        public Store {
            Objects.requireNonNull(uri, "uri");
            Objects.requireNonNull(config, "config");
        }

        @Override
        public String label() {
            return Backends.redact(uri);
        }

        @Override
        public String toString() {
            return "Store[" + label() + ", " + config + "]";
        }
    }

    /**
     * {@code quorum} (old name {@code peer}): the serverless seed-node quorum protocol (seed 003) on its own TCP
     * port, no store.
     *
     * @param listen  where this node listens for its peers; also its node id ({@link PeerAddress#format()})
     * @param config  cluster size, seeds and timing
     * @param secret  the shared secret peers authenticate with, if any; never printed
     * @param dataDir where the node keeps its votes across restarts; empty: in memory
     * @param name    the {@code --backend} word that chose it, {@code quorum} or {@code peer}: the node's status
     *                repeats it
     */
    record Peer(PeerAddress listen, QuorumConfig config, Optional<byte[]> secret, Optional<Path> dataDir, String name)
            implements BackendSpec {

        public Peer {
            Objects.requireNonNull(listen, "listen");
            Objects.requireNonNull(config, "config");
            secret = secret.map(byte[]::clone);
            Objects.requireNonNull(dataDir, "dataDir");
            if (!Backends.QUORUM.equals(name) && !Backends.PEER.equals(name)) {
                throw new IllegalArgumentException("name must be quorum or peer, was " + name);
            }
        }

        /** A quorum backend chosen as {@code --backend quorum}. */
        public Peer(PeerAddress listen, QuorumConfig config, Optional<byte[]> secret, Optional<Path> dataDir) {
            this(listen, config, secret, dataDir, Backends.QUORUM);
        }

        /** The seeds, as configured. */
        public List<PeerAddress> seeds() {
            return config.seeds();
        }

        @Override
        public String label() {
            return name;
        }

        @Override
        public Optional<byte[]> secret() {
            return secret.map(byte[]::clone);
        }

        @Override
        public String toString() {
            return "Peer[" + name + ", listen=" + listen.format() + ", " + config + ", secret="
                    + (secret.isPresent() ? "(set)" : "(none)") + ", dataDir="
                    + dataDir.map(Path::toString).orElse("(memory)") + "]";
        }
    }

    /**
     * {@code bully}: seed 004's bully protocol on its own TCP port, the group's leader record in a leader store.
     *
     * @param listen      where this node listens for its peers; also its node id ({@link PeerAddress#format()})
     * @param config      the timing
     * @param leaderStore the {@code --leader-store} value as given ({@code standalone}, {@code file:PATH},
     *                    {@code redis://…}, {@code postgresql://…}); may contain a password, never print it
     * @param secret      the shared secret peers authenticate with, if any; never printed
     */
    record Bully(PeerAddress listen, BullyConfig config, String leaderStore, Optional<byte[]> secret)
            implements BackendSpec {

        public Bully {
            Objects.requireNonNull(listen, "listen");
            Objects.requireNonNull(config, "config");
            Objects.requireNonNull(leaderStore, "leaderStore");
            secret = secret.map(byte[]::clone);
        }

        @Override
        public String label() {
            return "bully";
        }

        /** The leader store as it may be shown (no password). */
        public String leaderStoreLabel() {
            return Backends.redact(leaderStore.strip());
        }

        @Override
        public Optional<byte[]> secret() {
            return secret.map(byte[]::clone);
        }

        @Override
        public String toString() {
            return "Bully[listen=" + listen.format() + ", " + config + ", leaderStore=" + leaderStoreLabel()
                    + ", secret=" + (secret.isPresent() ? "(set)" : "(none)") + "]";
        }
    }
}

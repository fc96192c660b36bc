package dev.baton.peer.quorum;

import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Static configuration of a quorum cluster (seed 003), immutable and validated when built.
 *
 * <p>Every field, with its default ({@link #defaults()}) and the {@link #fast()} profile's value:
 * <ul>
 *   <li>{@code clusterSize} N (required, at least 1): the number of nodes in the cluster, fixed at start. A majority
 *       is M = N/2 + 1; an election and a leader's check-quorum both need M nodes. Running more than N nodes in one
 *       cluster voids the majority argument.</li>
 *   <li>{@code seeds} (required, at least one): the entry points nodes ask for the leader. Every node should list the
 *       same seeds, spelled as the seeds spell their own addresses.</li>
 *   <li>{@code heartbeatInterval} (1 s; fast 100 ms): how often a follower sends {@code LeaderKeepAlive}, the leader
 *       sends {@code SeedKeepAlive} and checks its members.</li>
 *   <li>{@code heartbeatTimeout} (5 s; fast 500 ms): a member the leader has not heard from for this long is checked
 *       indirectly and then marked unreachable; a leader that has not heard a majority for this long steps down
 *       (check-quorum); the leadership's local deadline is the last majority acknowledgement plus this.</li>
 *   <li>{@code ttlTimeout} (10 s; fast 1 s): a follower that has not heard its leader for this long starts the
 *       election process; an acceptor refuses to vote while it has heard its leader within this; an unreachable
 *       member not heard for this long is removed. Must exceed {@code heartbeatTimeout} by the clock-drift
 *       margin, so that a deposed leader stops before a majority can elect its successor.</li>
 *   <li>{@code retryInterval} (1 s; fast 100 ms): pause between rounds of leader queries, join attempts, status
 *       queries and election retries.</li>
 *   <li>{@code maxClockDrift} (0.01): the largest difference in rate between two nodes' monotonic clocks that the
 *       safety argument assumes (see {@code docs/quorum.md}).</li>
 *   <li>{@code allowLoneSeedBootstrap} (false): seed 003's availability-first behaviour: a seed that finds no
 *       leader at start-up, or none for 3 x {@code ttlTimeout}, makes itself leader without a majority, and leaders
 *       do not step down when they lose their majority. <b>Unsafe under partitions</b> (two leaders, and two leaders
 *       of one version); islands are then resolved by {@code LeaderRelieve} once the network heals.</li>
 * </ul>
 */
public final class QuorumConfig {

    private final int clusterSize;
    private final List<PeerAddress> seeds;
    private final Duration heartbeatInterval;
    private final Duration heartbeatTimeout;
    private final Duration ttlTimeout;
    private final Duration retryInterval;
    private final double maxClockDrift;
    private final boolean allowLoneSeedBootstrap;

    private QuorumConfig(Builder b) {
        this.clusterSize = b.clusterSize;
        this.seeds = List.copyOf(b.seeds);
        this.heartbeatInterval = b.heartbeatInterval;
        this.heartbeatTimeout = b.heartbeatTimeout;
        this.ttlTimeout = b.ttlTimeout;
        this.retryInterval = b.retryInterval;
        this.maxClockDrift = b.maxClockDrift;
        this.allowLoneSeedBootstrap = b.allowLoneSeedBootstrap;
    }

    /** A builder with the default timings; cluster size and seeds must still be set. */
    public static Builder defaults() {
        return new Builder();
    }

    /**
     * A builder with the fast timings (heartbeat every 100 ms, heartbeat timeout 500 ms, TTL 1 s, retries every
     * 100 ms): a killed leader is replaced about 1.2 s later. Cluster size and seeds must still be set.
     */
    public static Builder fast() {
        return new Builder()
                .heartbeatInterval(Duration.ofMillis(100))
                .heartbeatTimeout(Duration.ofMillis(500))
                .ttlTimeout(Duration.ofSeconds(1))
                .retryInterval(Duration.ofMillis(100));
    }

    /** A builder for the named profile: {@code default} or {@code fast}. */
    public static Builder profile(String name) {
        return switch (name) {
            case "default" -> defaults();
            case "fast" -> fast();
            default -> throw new IllegalArgumentException("unknown profile '" + name + "' (expected default or fast)");
        };
    }

    /** A builder holding this configuration's values, for variations. */
    public Builder toBuilder() {
        return new Builder()
                .clusterSize(clusterSize)
                .seeds(seeds)
                .heartbeatInterval(heartbeatInterval)
                .heartbeatTimeout(heartbeatTimeout)
                .ttlTimeout(ttlTimeout)
                .retryInterval(retryInterval)
                .maxClockDrift(maxClockDrift)
                .allowLoneSeedBootstrap(allowLoneSeedBootstrap);
    }

    public int clusterSize() {
        return clusterSize;
    }

    /** M = N/2 + 1: the votes an election needs and the nodes (itself included) a leader must hear. */
    public int majority() {
        return clusterSize / 2 + 1;
    }

    public List<PeerAddress> seeds() {
        return seeds;
    }

    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    public Duration heartbeatTimeout() {
        return heartbeatTimeout;
    }

    public Duration ttlTimeout() {
        return ttlTimeout;
    }

    public Duration retryInterval() {
        return retryInterval;
    }

    public double maxClockDrift() {
        return maxClockDrift;
    }

    public boolean allowLoneSeedBootstrap() {
        return allowLoneSeedBootstrap;
    }

    /** How long after it last saw a leader a node gives up on it and starts over from the seeds: 3 x ttlTimeout. */
    public Duration giveUpAfter() {
        return ttlTimeout.multipliedBy(3);
    }

    /** How long the leader waits for the two members it asked to probe a silent member. */
    public Duration probeTimeout() {
        return heartbeatInterval.multipliedBy(2);
    }

    @Override
    public String toString() {
        return "QuorumConfig{clusterSize=" + clusterSize + ", seeds=" + seeds + ", heartbeatInterval="
                + heartbeatInterval + ", heartbeatTimeout=" + heartbeatTimeout + ", ttlTimeout=" + ttlTimeout
                + ", retryInterval=" + retryInterval + ", maxClockDrift=" + maxClockDrift
                + ", allowLoneSeedBootstrap=" + allowLoneSeedBootstrap + "}";
    }

    /** Builds a {@link QuorumConfig}; {@link #build()} checks every field and combination. */
    public static final class Builder {
        private int clusterSize;
        private List<PeerAddress> seeds = List.of();
        private Duration heartbeatInterval = Duration.ofSeconds(1);
        private Duration heartbeatTimeout = Duration.ofSeconds(5);
        private Duration ttlTimeout = Duration.ofSeconds(10);
        private Duration retryInterval = Duration.ofSeconds(1);
        private double maxClockDrift = 0.01;
        private boolean allowLoneSeedBootstrap;

        private Builder() {
        }

        /** N, the number of nodes in the cluster; required. */
        public Builder clusterSize(int value) {
            this.clusterSize = value;
            return this;
        }

        /** The seed nodes' addresses; required, at least one. */
        public Builder seeds(List<PeerAddress> value) {
            this.seeds = Objects.requireNonNull(value, "seeds");
            return this;
        }

        public Builder seeds(PeerAddress... value) {
            return seeds(List.of(value));
        }

        public Builder heartbeatInterval(Duration value) {
            this.heartbeatInterval = value;
            return this;
        }

        public Builder heartbeatTimeout(Duration value) {
            this.heartbeatTimeout = value;
            return this;
        }

        public Builder ttlTimeout(Duration value) {
            this.ttlTimeout = value;
            return this;
        }

        public Builder retryInterval(Duration value) {
            this.retryInterval = value;
            return this;
        }

        public Builder maxClockDrift(double value) {
            this.maxClockDrift = value;
            return this;
        }

        /** Opt in to seed 003's unsafe lone-seed behaviour; see {@link QuorumConfig}. Default false. */
        public Builder allowLoneSeedBootstrap(boolean value) {
            this.allowLoneSeedBootstrap = value;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the first field that is missing, out of range, or inconsistent
         *     with another
         */
        public QuorumConfig build() {
            if (clusterSize < 1) {
                throw new IllegalArgumentException("clusterSize must be at least 1, was " + clusterSize);
            }
            if (seeds.isEmpty()) {
                throw new IllegalArgumentException("seeds must name at least one seed address");
            }
            if (seeds.size() > clusterSize) {
                throw new IllegalArgumentException(
                        "seeds (" + seeds.size() + ") cannot outnumber clusterSize (" + clusterSize + ")");
            }
            if (seeds.stream().distinct().count() != seeds.size()) {
                throw new IllegalArgumentException("seeds must not repeat an address: " + seeds);
            }
            positive("heartbeatInterval", heartbeatInterval);
            positive("heartbeatTimeout", heartbeatTimeout);
            positive("ttlTimeout", ttlTimeout);
            positive("retryInterval", retryInterval);
            if (!(maxClockDrift >= 0 && maxClockDrift < 0.2)) {
                throw new IllegalArgumentException("maxClockDrift must be within [0, 0.2), was " + maxClockDrift);
            }
            if (heartbeatTimeout.compareTo(heartbeatInterval.multipliedBy(2)) < 0) {
                throw new IllegalArgumentException("heartbeatTimeout (" + heartbeatTimeout
                        + ") must be at least twice heartbeatInterval (" + heartbeatInterval + ")");
            }
            // A deposed leader must have stopped (its deadline is at most heartbeatTimeout on its clock after the
            // last acknowledgement) before any voter's ttlTimeout since that acknowledgement has passed on the
            // voter's clock, with the two clocks running at rates up to maxClockDrift apart.
            double needed = heartbeatTimeout.toNanos() * (1 + maxClockDrift) / (1 - maxClockDrift);
            if (ttlTimeout.toNanos() <= needed) {
                throw new IllegalArgumentException("ttlTimeout (" + ttlTimeout + ") must exceed heartbeatTimeout ("
                        + heartbeatTimeout + ") x (1 + maxClockDrift) / (1 - maxClockDrift) = "
                        + Duration.ofNanos((long) needed));
            }
            if (retryInterval.compareTo(ttlTimeout) >= 0) {
                throw new IllegalArgumentException(
                        "retryInterval (" + retryInterval + ") must be shorter than ttlTimeout (" + ttlTimeout + ")");
            }
            return new QuorumConfig(this);
        }

        private static void positive(String field, Duration value) {
            Objects.requireNonNull(value, field + " must be set");
            if (value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(field + " must be positive, was " + value);
            }
        }
    }
}

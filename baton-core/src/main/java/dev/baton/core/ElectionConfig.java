package dev.baton.core;

import java.time.Duration;
import java.util.Objects;

/**
 * Timing of a lease election, immutable and validated when built.
 *
 * <p>The defaults are seed 000's: lease (lock) TTL 30 s, renewal (heartbeat) every 10 s, follower check every 5 s with
 * up to 2 s of random delay, process registration TTL 45 s renewed every 10 s. {@link #fast()} is for demos and
 * tests: TTL 3 s, renewal every 1 s, check every 500 ms.
 *
 * <p>Every field, with its default:
 * <ul>
 *   <li>{@code leaseTtl} (30 s): how long the store keeps a lease that is not renewed.</li>
 *   <li>{@code renewInterval} (10 s): how often the leader renews; must leave room for retries before the local
 *       deadline.</li>
 *   <li>{@code checkInterval} (5 s): the followers' fallback poll. Followers are woken by push notices and at the
 *       lease expiry they read, so this only matters when a notice is lost.</li>
 *   <li>{@code electionJitter} (2 s): random delay, uniform in [0, jitter), added to each fallback poll.</li>
 *   <li>{@code expiryJitter} (50 ms): random delay added when a follower wakes at the expiry it read.</li>
 *   <li>{@code releaseJitter} (0): random delay before a follower contends after a release notice. Zero by
 *       default because the acquire is one atomic store call: a herd of N followers costs N calls and yields one
 *       winner, and any delay here is added to every graceful handover.</li>
 *   <li>{@code maxClockDrift} (0.01): the largest rate difference assumed between this node's clock and the
 *       store's.</li>
 *   <li>{@code safetyMargin} (5 % of the TTL, at least 10 ms): subtracted from the local deadline.</li>
 *   <li>{@code storeTimeout} (2 s): the longest a single store call may take; a renewal's timeout is further
 *       capped by the time left before the local deadline.</li>
 *   <li>{@code retryInterval} (1 s): pause between retries of a failed renewal or acquisition (doubling up to
 *       {@code checkInterval} for acquisitions).</li>
 *   <li>{@code processTtl} (45 s): how long a process registration lives without a heartbeat.</li>
 *   <li>{@code processHeartbeatInterval} (10 s): how often each process renews its registration.</li>
 * </ul>
 * The local deadline of a leadership is {@code sendTime + leaseTtl * (1 - maxClockDrift) - safetyMargin}.
 */
public final class ElectionConfig {

    private final Duration leaseTtl;
    private final Duration renewInterval;
    private final Duration checkInterval;
    private final Duration electionJitter;
    private final Duration expiryJitter;
    private final Duration releaseJitter;
    private final double maxClockDrift;
    private final Duration safetyMargin;
    /** Whether {@link #safetyMargin} was set, rather than derived from the TTL (a variation then derives it again). */
    private final boolean marginSet;
    private final Duration storeTimeout;
    private final Duration retryInterval;
    private final Duration processTtl;
    private final Duration processHeartbeatInterval;
    private final boolean localDeadline;

    /** What "no local deadline" trusts a lease for: long enough never to matter in a run of the fault harness. */
    private static final Duration WITHOUT_LOCAL_DEADLINE = Duration.ofDays(1);

    private ElectionConfig(Builder b) {
        this.leaseTtl = b.leaseTtl;
        this.renewInterval = b.renewInterval;
        this.checkInterval = b.checkInterval;
        this.electionJitter = b.electionJitter;
        this.expiryJitter = b.expiryJitter;
        this.releaseJitter = b.releaseJitter;
        this.maxClockDrift = b.maxClockDrift;
        this.safetyMargin = b.safetyMargin != null ? b.safetyMargin : defaultMargin(b.leaseTtl);
        this.marginSet = b.safetyMargin != null;
        this.storeTimeout = b.storeTimeout;
        this.retryInterval = b.retryInterval;
        this.processTtl = b.processTtl;
        this.processHeartbeatInterval = b.processHeartbeatInterval;
        this.localDeadline = b.localDeadline;
    }

    /** Seed 000's timings. */
    public static ElectionConfig defaults() {
        return builder().build();
    }

    /** The fast profile for demos and tests: TTL 3 s, renewal every 1 s, check every 500 ms. */
    public static ElectionConfig fast() {
        return fastBuilder().build();
    }

    /** Looks a profile up by name: {@code default} or {@code fast}. */
    public static Builder profile(String name) {
        return switch (name) {
            case "default" -> builder();
            case "fast" -> fastBuilder();
            default -> throw new IllegalArgumentException("unknown profile '" + name + "' (expected default or fast)");
        };
    }

    public static Builder builder() {
        return new Builder();
    }

    private static Builder fastBuilder() {
        return builder()
                .leaseTtl(Duration.ofSeconds(3))
                .renewInterval(Duration.ofSeconds(1))
                .checkInterval(Duration.ofMillis(500))
                .electionJitter(Duration.ofMillis(200))
                .expiryJitter(Duration.ofMillis(5))
                .storeTimeout(Duration.ofMillis(500))
                .retryInterval(Duration.ofMillis(100))
                .processTtl(Duration.ofSeconds(5))
                .processHeartbeatInterval(Duration.ofSeconds(1));
    }

    private static Duration defaultMargin(Duration ttl) {
        if (ttl == null) {
            return Duration.ofMillis(10);
        }
        Duration fivePercent = ttl.dividedBy(20);
        return fivePercent.compareTo(Duration.ofMillis(10)) < 0 ? Duration.ofMillis(10) : fivePercent;
    }

    /**
     * A builder holding this configuration's values, for variations. A safety margin this configuration derived from
     * its TTL (none was set) stays derived: a variation with another TTL gets that TTL's default margin, not this one's.
     */
    public Builder toBuilder() {
        return builder()
                .leaseTtl(leaseTtl)
                .renewInterval(renewInterval)
                .checkInterval(checkInterval)
                .electionJitter(electionJitter)
                .expiryJitter(expiryJitter)
                .releaseJitter(releaseJitter)
                .maxClockDrift(maxClockDrift)
                .safetyMargin(marginSet ? safetyMargin : null)
                .storeTimeout(storeTimeout)
                .retryInterval(retryInterval)
                .processTtl(processTtl)
                .processHeartbeatInterval(processHeartbeatInterval)
                .localDeadline(localDeadline);
    }

    public Duration leaseTtl() {
        return leaseTtl;
    }

    public Duration renewInterval() {
        return renewInterval;
    }

    public Duration checkInterval() {
        return checkInterval;
    }

    public Duration electionJitter() {
        return electionJitter;
    }

    public Duration expiryJitter() {
        return expiryJitter;
    }

    public Duration releaseJitter() {
        return releaseJitter;
    }

    public double maxClockDrift() {
        return maxClockDrift;
    }

    public Duration safetyMargin() {
        return safetyMargin;
    }

    public Duration storeTimeout() {
        return storeTimeout;
    }

    public Duration retryInterval() {
        return retryInterval;
    }

    public Duration processTtl() {
        return processTtl;
    }

    public Duration processHeartbeatInterval() {
        return processHeartbeatInterval;
    }

    /**
     * How long after a request was sent a lease it obtained may be trusted locally; without a local deadline (see
     * {@link Builder#localDeadline}) a day, which in practice means until a renewal is refused.
     */
    public Duration localValidity() {
        return localDeadline ? localValidity(leaseTtl, maxClockDrift, safetyMargin) : WITHOUT_LOCAL_DEADLINE;
    }

    /**
     * How long the store may stay silent before this node stops vouching for the leader it last saw (see
     * {@link StoreContact}): one {@code leaseTtl}, since any lease the node read has expired or been renewed without it
     * by then; but never less than a follower's longest quiet spell while the store is healthy,
     * {@code checkInterval + electionJitter + storeTimeout}, so a follower that polls rarely is not called cut off.
     */
    public Duration storeContactLimit() {
        Duration quietSpell = checkInterval.plus(electionJitter).plus(storeTimeout);
        return quietSpell.compareTo(leaseTtl) > 0 ? quietSpell : leaseTtl;
    }

    /** Whether a leadership ends at its local deadline (always, unless a fault harness turned it off). */
    public boolean localDeadline() {
        return localDeadline;
    }

    private static Duration localValidity(Duration ttl, double drift, Duration margin) {
        long nanos = (long) (ttl.toNanos() * (1.0 - drift)) - margin.toNanos();
        return Duration.ofNanos(nanos);
    }

    @Override
    public String toString() {
        return "ElectionConfig{leaseTtl=" + leaseTtl + ", renewInterval=" + renewInterval
                + ", checkInterval=" + checkInterval + ", electionJitter=" + electionJitter
                + ", expiryJitter=" + expiryJitter + ", releaseJitter=" + releaseJitter
                + ", maxClockDrift=" + maxClockDrift + ", safetyMargin=" + safetyMargin
                + ", storeTimeout=" + storeTimeout + ", retryInterval=" + retryInterval
                + ", processTtl=" + processTtl + ", processHeartbeatInterval=" + processHeartbeatInterval
                + (localDeadline ? "" : ", localDeadline=false (UNSAFE)") + "}";
    }

    /** Builds an {@link ElectionConfig}; {@link #build()} checks every field and combination. */
    public static final class Builder {
        private Duration leaseTtl = Duration.ofSeconds(30);
        private Duration renewInterval = Duration.ofSeconds(10);
        private Duration checkInterval = Duration.ofSeconds(5);
        private Duration electionJitter = Duration.ofSeconds(2);
        private Duration expiryJitter = Duration.ofMillis(50);
        private Duration releaseJitter = Duration.ZERO;
        private double maxClockDrift = 0.01;
        private Duration safetyMargin;
        private Duration storeTimeout = Duration.ofSeconds(2);
        private Duration retryInterval = Duration.ofSeconds(1);
        private Duration processTtl = Duration.ofSeconds(45);
        private Duration processHeartbeatInterval = Duration.ofSeconds(10);
        private boolean localDeadline = true;

        private Builder() {
        }

        public Builder leaseTtl(Duration value) {
            this.leaseTtl = value;
            return this;
        }

        public Builder renewInterval(Duration value) {
            this.renewInterval = value;
            return this;
        }

        public Builder checkInterval(Duration value) {
            this.checkInterval = value;
            return this;
        }

        public Builder electionJitter(Duration value) {
            this.electionJitter = value;
            return this;
        }

        public Builder expiryJitter(Duration value) {
            this.expiryJitter = value;
            return this;
        }

        public Builder releaseJitter(Duration value) {
            this.releaseJitter = value;
            return this;
        }

        public Builder maxClockDrift(double value) {
            this.maxClockDrift = value;
            return this;
        }

        /** The margin subtracted from the local deadline; {@code null} for the default (5 % of TTL, >= 10 ms). */
        public Builder safetyMargin(Duration value) {
            this.safetyMargin = value;
            return this;
        }

        public Builder storeTimeout(Duration value) {
            this.storeTimeout = value;
            return this;
        }

        public Builder retryInterval(Duration value) {
            this.retryInterval = value;
            return this;
        }

        public Builder processTtl(Duration value) {
            this.processTtl = value;
            return this;
        }

        public Builder processHeartbeatInterval(Duration value) {
            this.processHeartbeatInterval = value;
            return this;
        }

        /**
         * <b>Unsafe; for the fault harness only.</b> With {@code false}, a leader does not stop at its local deadline:
         * it counts itself leader until a renewal is refused, as the designs Baton replaces do, so a leader cut off
         * from the store, or paused, acts on after its lease has passed to someone else. {@code baton chaos --naive}
         * uses it to show that its checkers catch what the local deadline prevents. Default {@code true}.
         */
        public Builder localDeadline(boolean value) {
            this.localDeadline = value;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the first field that is missing, out of range, or inconsistent
         *                                  with another
         */
        public ElectionConfig build() {
            positive("leaseTtl", leaseTtl);
            positive("renewInterval", renewInterval);
            positive("checkInterval", checkInterval);
            notNegative("electionJitter", electionJitter);
            notNegative("expiryJitter", expiryJitter);
            notNegative("releaseJitter", releaseJitter);
            if (!(maxClockDrift >= 0 && maxClockDrift < 0.5)) {
                throw new IllegalArgumentException("maxClockDrift must be within [0, 0.5), was " + maxClockDrift);
            }
            if (safetyMargin != null) {
                notNegative("safetyMargin", safetyMargin);
            }
            positive("storeTimeout", storeTimeout);
            positive("retryInterval", retryInterval);
            positive("processTtl", processTtl);
            positive("processHeartbeatInterval", processHeartbeatInterval);

            shorter("renewInterval", renewInterval, "leaseTtl", leaseTtl);
            shorter("storeTimeout", storeTimeout, "leaseTtl", leaseTtl);
            shorter("retryInterval", retryInterval, "leaseTtl", leaseTtl);
            shorter("processHeartbeatInterval", processHeartbeatInterval, "processTtl", processTtl);
            Duration margin = safetyMargin != null ? safetyMargin : defaultMargin(leaseTtl);
            Duration validity = localValidity(leaseTtl, maxClockDrift, margin);
            if (validity.compareTo(renewInterval) <= 0) {
                throw new IllegalArgumentException("renewInterval (" + renewInterval + ") must be shorter than the"
                        + " lease's local validity, leaseTtl * (1 - maxClockDrift) - safetyMargin = " + validity);
            }
            return new ElectionConfig(this);
        }

        private static void positive(String field, Duration value) {
            Objects.requireNonNull(value, field + " must be set");
            if (value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(field + " must be positive, was " + value);
            }
        }

        private static void notNegative(String field, Duration value) {
            Objects.requireNonNull(value, field + " must be set");
            if (value.isNegative()) {
                throw new IllegalArgumentException(field + " must not be negative, was " + value);
            }
        }

        private static void shorter(String field, Duration value, String otherField, Duration other) {
            if (value.compareTo(other) >= 0) {
                throw new IllegalArgumentException(
                        field + " (" + value + ") must be shorter than " + otherField + " (" + other + ")");
            }
        }
    }
}

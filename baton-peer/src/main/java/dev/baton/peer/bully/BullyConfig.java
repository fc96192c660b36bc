package dev.baton.peer.bully;

import java.time.Duration;
import java.util.Objects;

/**
 * Timings of the bully protocol (seed 004), immutable and validated when built.
 *
 * <p>Every field, with its default ({@link #defaults()}) and the {@link #fast()} profile's value:
 * <ul>
 *   <li>{@code pingInterval} (1 s; fast 100 ms): every member pings every other member this often (the seed's
 *       failure-detector loop). Traffic is 2 x (N - 1) messages per member per interval: O(N^2) in all.</li>
 *   <li>{@code suspectAfter} (3): consecutive intervals without an answer after which a member is suspected; it is
 *       then probed indirectly through one other member (within {@link #probeTimeout()}, 2 x pingInterval) and
 *       removed only if that probe fails too, so one slow link does not evict it.</li>
 *   <li>{@code electionTimeout} (2 s; fast 200 ms): how long a candidate waits for an ANSWER from a higher process
 *       before it claims leadership.</li>
 *   <li>{@code joinTimeout} (2 s; fast 1 s): how long a joiner waits for the leader's answer to its Join before it
 *       counts the leader as not contacted. Generous: the first connection of a starting process is slow, and four
 *       attempts without contact make it found a group of its own.</li>
 *   <li>{@code holdDown} (30 s; fast 3 s): a member takes over from a healthy leader with a lower process id only
 *       after it has been a member this long without a break, so a higher id that keeps crashing and coming back
 *       does not take over every time. Also how long a leader that stepped down stays out of elections.</li>
 *   <li>{@code storeCheckInterval} (2 s; fast 250 ms): how often the leader reads its record back from the leader
 *       store. A leader that finds a newer term there stops; one that cannot confirm its term for
 *       {@link #leadershipValidity()} (3 x storeCheckInterval) stops too.</li>
 *   <li>{@code storeTimeout} (2 s; fast 400 ms): a leader-store call that has not answered by then counts as failed.
 *       Must be below 2 x storeCheckInterval, so a healthy store always confirms a leadership in time.</li>
 *   <li>{@code joinAttempts} (4) and {@code readsPerAttempt} (3): seed 004's join loop: up to 4 attempts, each
 *       reading the leader record up to 3 times.</li>
 *   <li>{@code joinPauseMax} (1000 ms; fast 100 ms): the random pause (1 ms to this) after a read that found no
 *       leader, a leader that could not be contacted, or one that was not the leader.</li>
 *   <li>{@code addressInUsePause} (5 s; fast 500 ms): the pause after the leader said this node's address is still
 *       in use (or refused the join for another reason).</li>
 * </ul>
 *
 * <p>With the fast profile a killed leader is replaced about half a second later (p50 467 ms, p99 551 ms measured over
 * TCP with a file store): suspected after 3-4 silent intervals, confirmed by the indirect probe, then one election
 * round and two store calls.
 */
public final class BullyConfig {

    private final Duration pingInterval;
    private final int suspectAfter;
    private final Duration electionTimeout;
    private final Duration joinTimeout;
    private final Duration holdDown;
    private final Duration storeCheckInterval;
    private final Duration storeTimeout;
    private final int joinAttempts;
    private final int readsPerAttempt;
    private final Duration joinPauseMax;
    private final Duration addressInUsePause;

    private BullyConfig(Builder b) {
        this.pingInterval = b.pingInterval;
        this.suspectAfter = b.suspectAfter;
        this.electionTimeout = b.electionTimeout;
        this.joinTimeout = b.joinTimeout;
        this.holdDown = b.holdDown;
        this.storeCheckInterval = b.storeCheckInterval;
        this.storeTimeout = b.storeTimeout;
        this.joinAttempts = b.joinAttempts;
        this.readsPerAttempt = b.readsPerAttempt;
        this.joinPauseMax = b.joinPauseMax;
        this.addressInUsePause = b.addressInUsePause;
    }

    /** The default timings: ping every second, the seed's join pauses. */
    public static Builder defaults() {
        return new Builder();
    }

    /** The fast timings: ping every 100 ms, shorter pauses; a killed leader is replaced well within a second. */
    public static Builder fast() {
        return new Builder()
                .pingInterval(Duration.ofMillis(100))
                .electionTimeout(Duration.ofMillis(200))
                .joinTimeout(Duration.ofSeconds(1))
                .holdDown(Duration.ofSeconds(3))
                .storeCheckInterval(Duration.ofMillis(250))
                .storeTimeout(Duration.ofMillis(400))
                .joinPauseMax(Duration.ofMillis(100))
                .addressInUsePause(Duration.ofMillis(500));
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
                .pingInterval(pingInterval)
                .suspectAfter(suspectAfter)
                .electionTimeout(electionTimeout)
                .joinTimeout(joinTimeout)
                .holdDown(holdDown)
                .storeCheckInterval(storeCheckInterval)
                .storeTimeout(storeTimeout)
                .joinAttempts(joinAttempts)
                .readsPerAttempt(readsPerAttempt)
                .joinPauseMax(joinPauseMax)
                .addressInUsePause(addressInUsePause);
    }

    public Duration pingInterval() {
        return pingInterval;
    }

    public int suspectAfter() {
        return suspectAfter;
    }

    public Duration electionTimeout() {
        return electionTimeout;
    }

    public Duration joinTimeout() {
        return joinTimeout;
    }

    public Duration holdDown() {
        return holdDown;
    }

    public Duration storeCheckInterval() {
        return storeCheckInterval;
    }

    public Duration storeTimeout() {
        return storeTimeout;
    }

    public int joinAttempts() {
        return joinAttempts;
    }

    public int readsPerAttempt() {
        return readsPerAttempt;
    }

    public Duration joinPauseMax() {
        return joinPauseMax;
    }

    public Duration addressInUsePause() {
        return addressInUsePause;
    }

    /** How long the requester of an indirect probe waits for the helper's report: 2 x pingInterval. */
    public Duration probeTimeout() {
        return pingInterval.multipliedBy(2);
    }

    /**
     * How long a candidate that heard an ANSWER waits for the COORDINATOR before it runs the election again:
     * 2 x electionTimeout + 2 x storeTimeout (the higher process may itself wait for answers, then read and write the
     * store).
     */
    public Duration coordinatorTimeout() {
        return electionTimeout.multipliedBy(2).plus(storeTimeout.multipliedBy(2));
    }

    /** How long a leadership stays valid after the leader last confirmed its term in the store: 3 x storeCheckInterval. */
    public Duration leadershipValidity() {
        return storeCheckInterval.multipliedBy(3);
    }

    /**
     * The longest a crashed member stays undetected by a member that pings it: (suspectAfter + 1) x pingInterval
     * until it is suspected, plus probeTimeout for the indirect probe.
     */
    public Duration detectionBound() {
        return pingInterval.multipliedBy(suspectAfter + 1L).plus(probeTimeout());
    }

    @Override
    public String toString() {
        return "BullyConfig{pingInterval=" + pingInterval + ", suspectAfter=" + suspectAfter + ", electionTimeout="
                + electionTimeout + ", joinTimeout=" + joinTimeout + ", holdDown=" + holdDown + ", storeCheckInterval=" + storeCheckInterval
                + ", storeTimeout=" + storeTimeout + ", joinAttempts=" + joinAttempts + ", readsPerAttempt="
                + readsPerAttempt + ", joinPauseMax=" + joinPauseMax + ", addressInUsePause=" + addressInUsePause
                + "}";
    }

    /** Builds a {@link BullyConfig}; {@link #build()} checks every field and combination. */
    public static final class Builder {
        private Duration pingInterval = Duration.ofSeconds(1);
        private int suspectAfter = 3;
        private Duration electionTimeout = Duration.ofSeconds(2);
        private Duration joinTimeout = Duration.ofSeconds(2);
        private Duration holdDown = Duration.ofSeconds(30);
        private Duration storeCheckInterval = Duration.ofSeconds(2);
        private Duration storeTimeout = Duration.ofSeconds(2);
        private int joinAttempts = 4;
        private int readsPerAttempt = 3;
        private Duration joinPauseMax = Duration.ofSeconds(1);
        private Duration addressInUsePause = Duration.ofSeconds(5);

        private Builder() {
        }

        public Builder pingInterval(Duration value) {
            this.pingInterval = value;
            return this;
        }

        public Builder suspectAfter(int missedPings) {
            this.suspectAfter = missedPings;
            return this;
        }

        public Builder electionTimeout(Duration value) {
            this.electionTimeout = value;
            return this;
        }

        public Builder joinTimeout(Duration value) {
            this.joinTimeout = value;
            return this;
        }

        public Builder holdDown(Duration value) {
            this.holdDown = value;
            return this;
        }

        public Builder storeCheckInterval(Duration value) {
            this.storeCheckInterval = value;
            return this;
        }

        public Builder storeTimeout(Duration value) {
            this.storeTimeout = value;
            return this;
        }

        public Builder joinAttempts(int value) {
            this.joinAttempts = value;
            return this;
        }

        public Builder readsPerAttempt(int value) {
            this.readsPerAttempt = value;
            return this;
        }

        public Builder joinPauseMax(Duration value) {
            this.joinPauseMax = value;
            return this;
        }

        public Builder addressInUsePause(Duration value) {
            this.addressInUsePause = value;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the first field that is missing, out of range, or inconsistent
         *     with another
         */
        public BullyConfig build() {
            positive("pingInterval", pingInterval);
            positive("electionTimeout", electionTimeout);
            positive("joinTimeout", joinTimeout);
            positive("storeCheckInterval", storeCheckInterval);
            positive("storeTimeout", storeTimeout);
            positive("joinPauseMax", joinPauseMax);
            positive("addressInUsePause", addressInUsePause);
            Objects.requireNonNull(holdDown, "holdDown must be set");
            if (holdDown.isNegative()) {
                throw new IllegalArgumentException("holdDown must not be negative, was " + holdDown);
            }
            if (suspectAfter < 1 || suspectAfter > 100) {
                throw new IllegalArgumentException("suspectAfter must be within 1..100 missed pings, was "
                        + suspectAfter);
            }
            if (joinAttempts < 1 || joinAttempts > 100) {
                throw new IllegalArgumentException("joinAttempts must be within 1..100, was " + joinAttempts);
            }
            if (readsPerAttempt < 1 || readsPerAttempt > 100) {
                throw new IllegalArgumentException("readsPerAttempt must be within 1..100, was " + readsPerAttempt);
            }
            if (joinPauseMax.toMillis() < 1) {
                throw new IllegalArgumentException("joinPauseMax must be at least 1 ms, was " + joinPauseMax);
            }
            if (storeTimeout.compareTo(storeCheckInterval.multipliedBy(2)) >= 0) {
                throw new IllegalArgumentException("storeTimeout (" + storeTimeout
                        + ") must be below 2 x storeCheckInterval (" + storeCheckInterval
                        + "), or a healthy store could not confirm a leadership before it lapses");
            }
            return new BullyConfig(this);
        }

        private static void positive(String field, Duration value) {
            Objects.requireNonNull(value, field + " must be set");
            if (value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(field + " must be positive, was " + value);
            }
        }
    }
}

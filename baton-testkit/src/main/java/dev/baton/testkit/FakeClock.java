package dev.baton.testkit;

import dev.baton.core.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * A {@link Clock} that moves only when told to. Monotonic and wall time advance together. Thread-safe, but meant to
 * be driven from one test thread, usually through {@link DeterministicScheduler}.
 */
public final class FakeClock implements Clock {

    private static final Instant DEFAULT_EPOCH = Instant.parse("2026-01-01T00:00:00Z");

    private final Instant epoch;
    private long nanos;

    public FakeClock() {
        this(DEFAULT_EPOCH);
    }

    public FakeClock(Instant epoch) {
        this.epoch = epoch;
    }

    @Override
    public synchronized long nanoTime() {
        return nanos;
    }

    @Override
    public synchronized Instant instant() {
        return epoch.plusNanos(nanos);
    }

    /** Moves time forward by {@code duration}. */
    public synchronized void advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("time cannot go backwards: " + duration);
        }
        nanos += duration.toNanos();
    }

    /** Moves time forward to {@code nanoTime}; never backwards. */
    public synchronized void advanceTo(long nanoTime) {
        if (nanoTime < nanos) {
            throw new IllegalArgumentException("time cannot go backwards: " + nanoTime + " < " + nanos);
        }
        nanos = nanoTime;
    }

    /** Time elapsed since the clock was created. */
    public synchronized Duration elapsed() {
        return Duration.ofNanos(nanos);
    }
}

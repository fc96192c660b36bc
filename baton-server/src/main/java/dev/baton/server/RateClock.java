package dev.baton.server;

import dev.baton.core.time.Clock;
import java.time.Instant;

/**
 * {@code --clock-rate}: a clock that runs at {@code rate} times real time from the moment it was made, to give the fault
 * harness a node whose clock is a little fast or slow. Both readings move at the rate: {@code nanoTime() = start +
 * (real - start) x rate}, and the instant likewise from the wall-clock time at start. Only the election (and what
 * reads the node's clock) sees it; the harness's {@code mono} stamps stay on the real {@link System#nanoTime()}, and
 * {@link #toReal(long)} turns a reading of this clock back into real time.
 */
final class RateClock implements Clock {

    private final double rate;
    private final long startNanos;
    private final Instant startInstant;

    RateClock(double rate) {
        this.rate = rate;
        this.startNanos = System.nanoTime();
        this.startInstant = Instant.now();
    }

    /** The clock a node with {@code rate} runs on: the system clock itself at rate 1. */
    static Clock of(double rate) {
        return rate == 1.0 ? Clock.system() : new RateClock(rate);
    }

    @Override
    public long nanoTime() {
        return startNanos + scaled(System.nanoTime() - startNanos);
    }

    @Override
    public Instant instant() {
        return startInstant.plusNanos(scaled(System.nanoTime() - startNanos));
    }

    /** The real {@link System#nanoTime()} at which this clock read {@code nanos}. */
    long toReal(long nanos) {
        return startNanos + Math.round((nanos - startNanos) / rate);
    }

    /** {@code nanos} of a clock (this one, or the system clock itself) as real {@link System#nanoTime()}. */
    static long toReal(Clock clock, long nanos) {
        return clock instanceof RateClock rated ? rated.toReal(nanos) : nanos;
    }

    private long scaled(long realElapsed) {
        return Math.round(realElapsed * rate);
    }

    @Override
    public String toString() {
        return "RateClock{rate=" + rate + "}";
    }
}

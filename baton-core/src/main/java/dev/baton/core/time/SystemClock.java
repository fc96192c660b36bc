package dev.baton.core.time;

import java.time.Instant;

/** {@link Clock} backed by the JVM: the driver side of time, never used inside a state machine directly. */
final class SystemClock implements Clock {

    static final SystemClock INSTANCE = new SystemClock();

    private SystemClock() {
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Instant instant() {
        return Instant.now();
    }

    @Override
    public String toString() {
        return "Clock.system()";
    }
}

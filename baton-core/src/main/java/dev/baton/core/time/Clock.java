package dev.baton.core.time;

import java.time.Instant;

/**
 * The only source of time for Baton's state machines.
 *
 * <p>{@link #nanoTime()} is monotonic and is what every deadline and timeout is measured on. {@link #instant()} is
 * wall-clock time, used to stamp events and logs, and by the bully protocol as a floor for the terms it claims (a
 * leader record restored from an old copy then still yields a new term). No expiry or deadline in Baton compares two
 * wall clocks (expiry is decided by the store's clock).
 */
public interface Clock {

    /** Monotonic time in nanoseconds, from an arbitrary origin; only differences are meaningful. */
    long nanoTime();

    /** Wall-clock time, for timestamps shown to people. */
    Instant instant();

    /** The JVM's clocks: {@link System#nanoTime()} and {@link Instant#now()}. */
    static Clock system() {
        return SystemClock.INSTANCE;
    }
}

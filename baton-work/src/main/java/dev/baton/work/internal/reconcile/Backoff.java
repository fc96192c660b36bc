package dev.baton.work.internal.reconcile;

import java.time.Duration;
import java.util.Objects;

/**
 * Exponential backoff for per-item retries: the n-th consecutive failure waits {@code initial * 2^(n-1)}, at most
 * {@code max}. Pure.
 *
 * @param initial the wait after the first failure
 * @param max     the longest wait
 */
record Backoff(Duration initial, Duration max) {

    public Backoff {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(max, "max");
        if (initial.isNegative() || initial.isZero()) {
            throw new IllegalArgumentException("retryInitial must be positive, was " + initial);
        }
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("retryMax (" + max + ") must be at least retryInitial (" + initial
                    + ")");
        }
    }

    /** The wait after {@code failures} consecutive failures (at least 1). */
    public Duration after(int failures) {
        int doublings = Math.max(0, Math.min(failures - 1, 40));
        long nanos = initial.toNanos();
        for (int i = 0; i < doublings && nanos < max.toNanos(); i++) {
            nanos = nanos > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : nanos * 2;
        }
        return Duration.ofNanos(Math.min(nanos, max.toNanos()));
    }
}

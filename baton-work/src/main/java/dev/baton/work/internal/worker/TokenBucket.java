package dev.baton.work.internal.worker;

/**
 * A token bucket on a nanosecond clock: {@code rate} tokens a second, at most {@code burst} saved up; starts full.
 * Not thread-safe: a connection uses it on its scheduler.
 */
final class TokenBucket {

    private final double perNano;
    private final double burst;
    private double tokens;
    private long at;

    TokenBucket(double ratePerSecond, double burst, long nowNanos) {
        this.perNano = ratePerSecond / 1e9;
        this.burst = burst;
        this.tokens = burst;
        this.at = nowNanos;
    }

    /** Takes one token if there is one. */
    boolean take(long nowNanos) {
        long elapsed = nowNanos - at;
        if (elapsed > 0) {
            tokens = Math.min(burst, tokens + elapsed * perNano);
            at = nowNanos;
        }
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}

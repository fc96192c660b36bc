package dev.baton.bench.handover;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Where contenders report the two instants of a handover: {@link #releasing()} just before the leader's release
 * call (t0) and {@link #acquired(int)} first thing in the next leader's callback (t1), both on
 * {@link System#nanoTime()}.
 */
public final class LeaderSink {

    /** One leader callback: which contender, and when (nanoTime taken before anything else in the callback). */
    public record Acquisition(int contender, long atNanos) {
    }

    private final BlockingQueue<Acquisition> acquisitions = new LinkedBlockingQueue<>();
    private volatile long releaseNanos;

    /** Called by a contender's leader callback, on whatever thread the candidate calls it. */
    public void acquired(int contender) {
        acquired(contender, System.nanoTime());
    }

    /** Reports a leader callback whose time the contender took itself, first thing in the callback. */
    public void acquired(int contender, long atNanos) {
        acquisitions.add(new Acquisition(contender, atNanos));
    }

    /** Called by the releasing contender immediately before its release call. */
    public void releasing() {
        releaseNanos = System.nanoTime();
    }

    /** The t0 of the latest release. */
    long releaseNanos() {
        return releaseNanos;
    }

    /** The next leader callback, or {@code null} if none came within {@code timeoutMillis}. */
    Acquisition next(long timeoutMillis) throws InterruptedException {
        return acquisitions.poll(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** Drops callbacks not consumed yet (between passes). */
    void clear() {
        acquisitions.clear();
    }
}

package dev.baton.work.internal.reconcile;

import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import java.time.Duration;
import java.util.ArrayDeque;

/**
 * A token bucket for the commands sent to one worker: at most {@code burst} at once, then {@code perSecond}. Work
 * over the limit waits in order and runs on the scheduler when a token is free, so a burst of moves (a worker
 * joining, a failover) does not flood a worker. Not thread-safe: runs on the leader's scheduler.
 */
final class RateLimiter {

    private final Scheduler scheduler;
    private final Clock clock;
    private final double perNano;
    private final double burst;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private double tokens;
    private long refilledAt;
    private boolean drainScheduled;
    private boolean closed;

    RateLimiter(Scheduler scheduler, Clock clock, double perSecond, int burst) {
        this.scheduler = scheduler;
        this.clock = clock;
        this.perNano = perSecond / 1e9;
        this.burst = burst;
        this.tokens = burst;
        this.refilledAt = clock.nanoTime();
    }

    /** Runs {@code work} now if a token is free and nothing waits, else later in order. */
    void submit(Runnable work) {
        if (closed) {
            return;
        }
        refill();
        if (waiting.isEmpty() && tokens >= 1) {
            tokens -= 1;
            work.run();
            return;
        }
        waiting.addLast(work);
        scheduleDrain();
    }

    /** Work waiting for a token. */
    int waiting() {
        return waiting.size();
    }

    /** Drops the waiting work; nothing runs after this. */
    void close() {
        closed = true;
        waiting.clear();
    }

    private void refill() {
        long now = clock.nanoTime();
        tokens = Math.min(burst, tokens + (now - refilledAt) * perNano);
        refilledAt = now;
    }

    private void scheduleDrain() {
        if (drainScheduled) {
            return;
        }
        drainScheduled = true;
        long waitNanos = (long) Math.ceil(Math.max(0, 1 - tokens) / perNano);
        scheduler.schedule(Duration.ofNanos(Math.max(waitNanos, 1_000_000)), this::drain);
    }

    private void drain() {
        drainScheduled = false;
        if (closed) {
            return;
        }
        refill();
        while (!waiting.isEmpty() && tokens >= 1) {
            tokens -= 1;
            waiting.pollFirst().run();
        }
        if (!waiting.isEmpty()) {
            scheduleDrain();
        }
    }
}

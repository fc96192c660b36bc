package dev.baton.work.internal.reconcile;

import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.Executor;

/**
 * Where and when the leader's work runs: its state machine, connections and timers on one scheduler; blocking user
 * code (the desired state source, the assignment hook, the session handler) on the source executor.
 *
 * @param scheduler      runs the role, its connections and its timers, one task at a time
 * @param clock          the time source
 * @param random         reconnect jitter
 * @param sourceExecutor runs blocking calls: the desired state source, the assignment hook, the session handler
 */
public record LeaderThreads(Scheduler scheduler, Clock clock, Random random, Executor sourceExecutor) {

    public LeaderThreads {
        Objects.requireNonNull(scheduler, "scheduler");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(random, "random");
        Objects.requireNonNull(sourceExecutor, "sourceExecutor");
    }
}

package dev.baton.bench.scale;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One row of the scale table: a process (this JVM) starts N uncontested groups on one client, waits until it leads
 * them all, lets them settle, measures a steady window, then gives them all up.
 */
record GroupRun(GroupClient client, StoreCounter counter, Duration window) {

    /** One row's results; {@code elected < groups} means not every group was led within the timeout. */
    record Row(int groups, int elected, long electNanos, Footprint before, SteadyCost steady, boolean closed,
            long closeNanos, int stillHeld) {
    }

    static final Duration ELECT_TIMEOUT = Duration.ofSeconds(180);
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(120);
    static final Duration SETTLE = Duration.ofSeconds(3);

    Row measure(int n, String prefix) throws Exception {
        Footprint before = Footprint.now();
        GroupSet groups = client.open(prefix, n, "bench");
        long t0 = System.nanoTime();
        List<CompletableFuture<Long>> led = groups.start();
        Futures.awaitAll(led, ELECT_TIMEOUT);
        long[] ledAt = Futures.completed(led);
        long electNanos = Arrays.stream(ledAt).max().orElse(t0) - t0;
        System.err.printf("scale: %d of %d groups led after %.1f s; settling, then a %d s window%n", ledAt.length,
                n, (System.nanoTime() - t0) / 1e9, window.toSeconds());
        Thread.sleep(SETTLE.plus(counter.lag()).toMillis());
        SteadyCost steady = SteadyCost.measure(window, counter);
        long c0 = System.nanoTime();
        boolean closed = Futures.await(groups.closeAll(), CLOSE_TIMEOUT);
        long closeNanos = System.nanoTime() - c0;
        int stillHeld = groups.stillHeld();
        System.err.printf("scale: %d groups: %.0f %% CPU, %.0f store calls/s, closed %s in %.1f s, %d still held%n",
                n, steady.cpuPercent(), steady.storePerSecond(), closed ? "all" : "NOT all", closeNanos / 1e9,
                stillHeld);
        return new Row(n, ledAt.length, electNanos, before, steady, closed, closeNanos, stillHeld);
    }
}

package dev.baton.bench.scale;

import dev.baton.bench.failover.NodeProcess;
import dev.baton.bench.stats.Samples;
import dev.baton.bench.stats.Summary;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link ScaleHolder} child JVM leads N groups; this JVM contends for the same N groups on its own client; the
 * holder is killed with SIGKILL, at a random point of its renewal cycle, and, per group, the time from the kill
 * until this JVM leads it is recorded. It includes the lease the holder had left, which must run out first.
 */
final class KilledHolder {

    /**
     * The result: per-group kill -> new leader times, if any group was led again, and how many were; or, if the
     * holder was never killed, why ({@code stopped}).
     */
    record Failover(int groups, Duration leaseTtl, int ledAgain, Optional<Summary> killToLeader,
            Optional<String> stopped) {

        /** A measurement that stopped before the kill, e.g. because the contenders never all waited. */
        static Failover stopped(int groups, Duration leaseTtl, String why) {
            return new Failover(groups, leaseTtl, 0, Optional.empty(), Optional.of(why));
        }
    }

    private static final String PREFIX = "killed-";
    private static final long HOLDER_READY_SECONDS = 240;
    private static final Duration CONTENDING_TIMEOUT = Duration.ofSeconds(120);
    /** Beyond the lease TTL, how long the contenders are given to take every group. */
    private static final Duration FAILOVER_SLACK = Duration.ofSeconds(60);

    private KilledHolder() {
    }

    /** {@code random} picks when in the holder's renewal cycle the kill lands. */
    static Failover measure(ScaleSystem system, String uri, GroupClient client, int n, Random random)
            throws Exception {
        NodeProcess holder = NodeProcess.start("scale-holder", ScaleHolder.class,
                List.of(system.key(), uri, PREFIX, Integer.toString(n)));
        try {
            holder.awaitReady(HOLDER_READY_SECONDS);
            System.err.println("scale: holder leads " + n + " groups; starting contenders");
            GroupSet contenders = client.open(PREFIX, n, "contender");
            List<CompletableFuture<Long>> led = contenders.start();
            if (!Futures.await(contenders.contending(), CONTENDING_TIMEOUT)) {
                throw new IllegalStateException("the contenders did not all wait within "
                        + CONTENDING_TIMEOUT.toSeconds() + " s");
            }
            if (Futures.completed(led).length > 0) {
                throw new IllegalStateException("a contender led while the holder was alive");
            }
            Thread.sleep(random.nextLong(client.renewInterval().toMillis()));
            long killAt = System.nanoTime();
            holder.kill();
            System.err.println("scale: holder killed; waiting up to the lease TTL for new leaders");
            Futures.awaitAll(led, client.leaseTtl().plus(FAILOVER_SLACK));
            Samples samples = new Samples(0, n);
            for (long at : Futures.completed(led)) {
                samples.add(at - killAt);
            }
            Futures.await(contenders.closeAll(), GroupRun.CLOSE_TIMEOUT);
            return new Failover(n, client.leaseTtl(), samples.kept(),
                    samples.kept() == 0 ? Optional.empty() : Optional.of(samples.summary()), Optional.empty());
        } finally {
            holder.stop();
        }
    }
}

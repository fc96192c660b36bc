package dev.baton.bench.support;

import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.backend.PushProbe;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.Samples;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * What the machine charges for the two things every handover is made of, measured the way the handover harness
 * measures: a round trip to the store's server ({@code PING} on Redis, {@code SELECT 1} on PostgreSQL), one push notice
 * through the server's own mechanism outside Baton ({@code PUBLISH} to a pub/sub listener, {@code NOTIFY} to a LISTEN
 * thread), and handing work to another (parked) thread. Each is taken both back to back and
 * after an idle pause of 50-550 ms, because a thread (and a virtual CPU) that has been idle for the hold time wakes
 * up more slowly than one that just ran.
 */
public final class Calibration {

    private static final int HOT = 2_000;
    private static final int COLD = 40;

    private Calibration() {
    }

    /** A table with the backend's raw round trip and thread hand-off latencies, hot and after an idle hold. */
    public static String table(BenchBackend backend, Random random) throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "bench-calibration");
            thread.setDaemon(true);
            return thread;
        });
        try (PushProbe push = backend.openPushProbe()) {
            LatencyReport report = new LatencyReport()
                    .add(backend.roundTripName() + ", back to back", roundTrips(backend, random, HOT, false).summary(),
                            backend.roundTripClient())
                    .add(backend.roundTripName() + " after 50-550 ms idle",
                            roundTrips(backend, random, COLD, true).summary(), backend.roundTripClient())
                    .add(push.name() + ", back to back", pushes(push, random, HOT, false).summary(),
                            "send on one connection, received on another")
                    .add(push.name() + " after 50-550 ms idle", pushes(push, random, COLD, true).summary(),
                            "send on one connection, received on another")
                    .add("thread hand-off, back to back", handOff(other, random, HOT, false).summary(),
                            "execute() on a parked single-thread executor -> task runs")
                    .add("thread hand-off after 50-550 ms idle", handOff(other, random, COLD, true).summary(),
                            "the same after an idle hold");
            return report.table();
        } finally {
            other.shutdownNow();
            other.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static Samples roundTrips(BenchBackend backend, Random random, int count, boolean idle) throws Exception {
        Samples samples = new Samples(idle ? 2 : 200, count);
        for (int i = 0; i < count + (idle ? 2 : 200); i++) {
            pause(random, idle);
            long t0 = System.nanoTime();
            backend.roundTrip();
            samples.add(System.nanoTime() - t0);
        }
        return samples;
    }

    private static Samples pushes(PushProbe push, Random random, int count, boolean idle) throws Exception {
        Samples samples = new Samples(idle ? 2 : 200, count);
        for (int i = 0; i < count + (idle ? 2 : 200); i++) {
            pause(random, idle);
            samples.add(push.sendAndAwait());
        }
        return samples;
    }

    private static Samples handOff(ExecutorService other, Random random, int count, boolean idle) throws Exception {
        Samples samples = new Samples(idle ? 2 : 200, count);
        for (int i = 0; i < count + (idle ? 2 : 200); i++) {
            pause(random, idle);
            CompletableFuture<Long> ran = new CompletableFuture<>();
            long t0 = System.nanoTime();
            other.execute(() -> ran.complete(System.nanoTime()));
            samples.add(ran.get(5, TimeUnit.SECONDS) - t0);
        }
        return samples;
    }

    private static void pause(Random random, boolean idle) throws InterruptedException {
        if (idle) {
            Thread.sleep(50 + random.nextInt(501));
        }
    }
}

package dev.baton.bench.work;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.Samples;
import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Subscribe latency (issue 6; seed 001 promises under 100 ms): from the {@code subscribe} call on a process to the
 * {@code subscribe} command arriving at the worker the leader picked, one item at a time, called on the follower
 * (request over Redis pub/sub to the leader) and on the leader itself; the same for {@code unsubscribe}. The worker
 * side is the simulated worker's own record of each message it receives, stamped on arrival.
 */
public final class WorkSubscribeScenario implements Scenario {

    private static final int WORKERS = 4;

    private final CommandArrivals arrivals = new CommandArrivals();
    private int next;

    @Override
    public String name() {
        return "work-subscribe";
    }

    @Override
    public String description() {
        return "work cluster: subscribe/unsubscribe call -> the worker has the command, from the follower and the"
                + " leader";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(300);
        int warmup = options.warmup(50);
        try (WorkHarness h = WorkHarness.start(WORKERS, 0, arrivals.listener(), follower -> { })) {
            out.println("## Work cluster: subscribe latency");
            out.println();
            out.println(h.describeRedis() + " " + WORKERS + " simulated workers, no results flowing; the leader's and"
                    + " the follower's work clusters in one JVM, each with its own Redis connections, election and"
                    + " threads. One call at a time; " + warmup + " warm-up calls, then " + n + " measured, per row."
                    + " \"stored\" is the call's own future (the leader stored the item, or removed it); \"worker has"
                    + " it\" is the command's arrival at the worker.");
            out.println();
            LatencyReport report = new LatencyReport();
            measure(report, "subscribe on the follower: worker has it", "subscribe on the follower: stored",
                    warmup, n, id -> h.follower().subscribe(WorkHarness.item(id)), "subscribe");
            measure(report, "subscribe on the leader: worker has it", "subscribe on the leader: stored",
                    warmup, n, id -> h.leader().subscribe(WorkHarness.item(id)), "subscribe");
            next = 0;
            measure(report, "unsubscribe on the follower: worker told", "unsubscribe on the follower: removed",
                    warmup, n, id -> h.follower().unsubscribe(id), "unsubscribe");
            out.println(report.table());
        }
    }

    private void measure(LatencyReport report, String arrivedRow, String storedRow, int warmup, int n,
            Function<String, CompletableFuture<Boolean>> call, String command) throws Exception {
        Samples arrived = new Samples(warmup, n);
        Samples stored = new Samples(warmup, n);
        for (int i = 0; i < warmup + n; i++) {
            String id = "display-" + next + ";camera-" + next;
            next++;
            CompletableFuture<Long> arrival = arrivals.expect(command, id);
            long start = System.nanoTime();
            CompletableFuture<Boolean> done = call.apply(id);
            done.get(30, TimeUnit.SECONDS);
            long storedAt = System.nanoTime();
            long arrivedAt = arrival.get(30, TimeUnit.SECONDS);
            arrived.add(arrivedAt - start);
            stored.add(storedAt - start);
        }
        report.add(arrivedRow, arrived.summary(), null);
        report.add(storedRow, stored.summary(), null);
    }
}

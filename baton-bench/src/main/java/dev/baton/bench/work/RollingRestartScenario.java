package dev.baton.bench.work;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.work.WorkCluster;
import dev.baton.work.WorkClusterConfig;
import dev.baton.work.WorkClusterEvent;
import dev.baton.worker.sim.SimulatedWorker;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A rolling restart of every worker, one after the other, as a deploy does: each simulated worker (a real WebSocket
 * server on loopback) stops and starts again as a new process with nothing running, and the next one goes only once
 * it is back online. Done twice on the same fleet and items: once with a drain before each stop (the worker announces
 * {@code draining} and waits until its items run elsewhere, as {@code baton worker} does on SIGTERM), once without
 * (the worker just stops, as a killed one). Measured: item-seconds without a running copy anywhere (sampled every
 * 5 ms from the workers' own lists), the longest gap of one item, and the moves the leader made.
 */
public final class RollingRestartScenario implements Scenario {

    private static final int WORKERS = 10;
    private static final Duration SAMPLE = Duration.ofMillis(5);
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    /** How long a worker takes to start an item (a model loading): what a move without a running copy costs. */
    private static final Duration STARTUP = Duration.ofMillis(
            Long.getLong("baton.bench.work.startupMs", 500));

    @Override
    public String name() {
        return "work-rolling-restart";
    }

    @Override
    public String description() {
        return "work cluster: a rolling restart of 10 workers with and without drain -> item-seconds with no running"
                + " copy, moves";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int items = options.n(200);
        out.println("## Work cluster: rolling restart of " + WORKERS + " workers");
        out.println();
        out.println(WORKERS + " simulated workers on loopback WebSockets, " + items + " items, one leader in this JVM on"
                + " an in-memory store, the fast profile (reconnect after 1 s, offline after 3 s without a report)."
                + " Each worker in turn stops and starts again empty; the next goes once it is online again. A"
                + " worker takes " + STARTUP.toMillis() + " ms to start an item (a model loading; it is listed as"
                + " running only then). Gaps are sampled every " + SAMPLE.toMillis() + " ms from what the workers"
                + " themselves run.");
        out.println();
        MarkdownTable table = new MarkdownTable("restart", "item-seconds with no running copy", "longest gap of one"
                + " item (ms)", "items with a gap", "moves", "took (s)");
        for (boolean drain : new boolean[] {true, false}) {
            Result r = restart(items, drain);
            table.row(drain ? "with drain (make-before-break)" : "without drain (stop, then the leader moves)",
                    String.format("%.3f", r.itemSeconds), Long.toString(r.longestGapMs), Integer.toString(r.itemsHit),
                    Long.toString(r.moves), String.format("%.1f", r.seconds));
        }
        out.println(table.render());
    }

    private record Result(double itemSeconds, long longestGapMs, int itemsHit, long moves, double seconds) {
    }

    private Result restart(int itemCount, boolean drain) throws Exception {
        List<SimulatedWorker> workers = new ArrayList<>();
        for (int i = 0; i < WORKERS; i++) {
            workers.add(SimulatedWorker.builder().detectionsPerSecond(0).reportInterval(Duration.ofMillis(500))
                    .startupDelay(STARTUP).start());
        }
        InMemoryStore store = new InMemoryStore();
        Election election = Baton.election(store).group("bench-rolling").node(NodeInfo.of("leader", "bench"))
                .config(ElectionConfig.fast()).build();
        WorkCluster cluster = WorkCluster.builder(election, store)
                .workers(workers.stream().map(w -> w.uri().toString()).toList())
                .config(WorkClusterConfig.fast()).build();
        AtomicLong moves = new AtomicLong();
        cluster.addListener(e -> {
            if (e instanceof WorkClusterEvent.ItemMoved) {
                moves.incrementAndGet();
            }
        });
        try {
            cluster.start();
            election.start();
            WorkHarness.await("the leader to lead", cluster::isLeading);
            for (int i = 0; i < itemCount; i++) {
                cluster.subscribe(WorkHarness.item("display-" + i + ";camera-" + i)).get(30, TimeUnit.SECONDS);
            }
            WorkHarness.await("every item running", () -> running(workers).size() == itemCount);
            moves.set(0);

            Gaps gaps = new Gaps(itemCount);
            long start = System.nanoTime();
            for (SimulatedWorker worker : workers) {
                if (drain) {
                    worker.drain("rolling restart", PATIENCE);
                }
                worker.kill();
                gaps.sampleFor(workers, Duration.ofMillis(200)); // the process is down a moment
                worker.restart();
                gaps.sampleUntil(workers, () -> worker.connections() > 0 && cluster.getState().join().workers()
                        .stream().filter(w -> w.url().equals(worker.uri().toString())).allMatch(w -> w.online()));
            }
            gaps.sampleUntil(workers, () -> running(workers).size() == itemCount);
            double seconds = (System.nanoTime() - start) / 1e9;
            return new Result(gaps.itemNanos / 1e9, gaps.longestNanos / 1_000_000, gaps.hit.size(), moves.get(),
                    seconds);
        } finally {
            cluster.close();
            election.close();
            store.close();
            workers.forEach(SimulatedWorker::close);
        }
    }

    private static Set<String> running(List<SimulatedWorker> workers) {
        Set<String> all = new HashSet<>();
        workers.forEach(w -> all.addAll(w.subscriptions()));
        return all;
    }

    /** Item-time with no running copy, from samples of what the workers run. */
    private static final class Gaps {
        private final int itemCount;
        private final long[] gapStart;
        final Set<String> hit = new HashSet<>();
        long itemNanos;
        long longestNanos;
        private long last = System.nanoTime();

        Gaps(int itemCount) {
            this.itemCount = itemCount;
            this.gapStart = new long[itemCount];
        }

        void sampleFor(List<SimulatedWorker> workers, Duration duration) throws InterruptedException {
            long until = System.nanoTime() + duration.toNanos();
            sampleUntil(workers, () -> System.nanoTime() - until >= 0);
        }

        void sampleUntil(List<SimulatedWorker> workers, java.util.function.BooleanSupplier done)
                throws InterruptedException {
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (!done.getAsBoolean()) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the rolling restart did not settle within " + PATIENCE);
                }
                sample(workers);
                TimeUnit.NANOSECONDS.sleep(SAMPLE.toNanos());
            }
            sample(workers);
        }

        private void sample(List<SimulatedWorker> workers) {
            long now = System.nanoTime();
            long dt = now - last;
            last = now;
            Set<String> running = running(workers);
            for (int i = 0; i < itemCount; i++) {
                String id = "display-" + i + ";camera-" + i;
                if (running.contains(id)) {
                    if (gapStart[i] != 0) {
                        longestNanos = Math.max(longestNanos, now - gapStart[i]);
                        gapStart[i] = 0;
                    }
                } else {
                    itemNanos += dt;
                    hit.add(id);
                    if (gapStart[i] == 0) {
                        gapStart[i] = now;
                    }
                }
            }
        }
    }
}

package dev.baton.bench.work;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.Findings;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Summary;
import dev.baton.worker.sim.SimulatedWorker;
import dev.baton.work.ListenerRegistration;
import dev.baton.work.worker.WorkerMessage;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Result routing through Redis (issue 6): simulated workers send {@code imageDetection} results over their WebSockets
 * to the leader's work cluster, which routes each one over Redis pub/sub ({@code worker:slave:{processId}}) to the
 * follower, whose global detection listener receives it. Latency is the listener's receipt time minus the worker's
 * {@code timestamp} (stamped when the worker builds the message; same machine, same clock); throughput is what the
 * listener received per second of the measured window. The offered load rises in steps by subscribing more items
 * (each sends a fixed rate); each step has a warm-up and a measured window. Per step the table also shows what the
 * leader re-sent for want of an acknowledgement and dropped unacknowledged (its {@code counters()}), and the JVM's CPU.
 * Every tenth item also has a per-item listener on the leader itself, which the leader serves without Redis: "at
 * leader" is the worker -> leader part of the path, the rest is the Redis hop and the follower.
 */
public final class WorkRoutingScenario implements Scenario {

    /** Simulated workers; {@code -Dbaton.bench.work.workers=N} to change (more workers, smaller batches). */
    private static final int WORKERS = Integer.getInteger("baton.bench.work.workers", 8);
    private static final double PER_ITEM = 100;
    /** Offered results per second, one step each; {@code -Dbaton.bench.work.rates=10000,20000} to change. */
    private static final String RATES = "baton.bench.work.rates";

    private final int[] rates;

    private final AtomicReference<Recorder> recorder = new AtomicReference<>();
    /** Every tenth item also has a listener on the leader, which gets its results without the Redis hop. */
    private final AtomicReference<Recorder> atLeader = new AtomicReference<>();
    private ListenerRegistration listening;

    /** The steps {@code -Dbaton.bench.work.rates} names, by default 5,000, 10,000, 20,000 and 30,000 results/s. */
    public WorkRoutingScenario() {
        this(Arrays.stream(System.getProperty(RATES, "5000,10000,20000,30000").split(","))
                .mapToInt(r -> Integer.parseInt(r.strip())).toArray());
    }

    /** One step per rate (results/s offered), in the order given. */
    public WorkRoutingScenario(int[] rates) {
        if (rates.length == 0 || Arrays.stream(rates).anyMatch(r -> r < PER_ITEM)) {
            throw new IllegalArgumentException("rates must be at least " + (int) PER_ITEM + " results/s each");
        }
        this.rates = rates.clone();
    }

    @Override
    public String name() {
        return "work-routing";
    }

    @Override
    public String description() {
        return "work cluster: results worker -> leader -> Redis pub/sub -> listener on a non-leader, 5k-30k/s"
                + " (--n seconds measured per step, --warmup seconds)";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int seconds = options.n(15);
        int warmup = options.warmup(5);
        try (WorkHarness h = WorkHarness.start(WORKERS, PER_ITEM, new SimulatedWorker.Listener() { },
                follower -> listening = follower.addGlobalDetectionListener(this::received))) {
            listening.routed().get(30, TimeUnit.SECONDS);
            out.println("## Work cluster: result routing through Redis");
            out.println();
            out.println(h.describeRedis() + " " + WORKERS + " simulated workers (`SimulatedWorker`, which sends every"
                    + " 50 ms a batch of each subscription's results), each item " + (int) PER_ITEM + " results/s; the leader's and the"
                    + " follower's work clusters in one JVM, each with its own Redis connections, election and"
                    + " threads; the follower's global listener gets every result. " + warmup + " s warm-up and "
                    + seconds + " s measured per step.");
            out.println();
            MarkdownTable table = new MarkdownTable("offered /s", "items", "received /s", "p50 ms", "p90 ms",
                    "p99 ms", "p99.9 ms", "max ms", "at leader p50 / p99 ms", "re-sent", "dropped",
                    "checked / missing", "JVM CPU (cores)");
            CpuAccount cpu = new CpuAccount(h.redisPid());
            List<Step> steps = new ArrayList<>();
            int subscribed = 0;
            for (int rate : rates) {
                int items = (int) Math.round(rate / PER_ITEM);
                List<CompletableFuture<Boolean>> pending = new ArrayList<>();
                for (int i = subscribed; i < items; i++) {
                    String id = "display-" + i + ";camera-" + i;
                    if (i % 10 == 0) {
                        h.leader().addDetectionListener(id, d -> record(atLeader, d));
                    }
                    pending.add(h.follower().subscribe(WorkHarness.item(id)));
                }
                pending.forEach(CompletableFuture::join);
                subscribed = items;
                int expected = items;
                WorkHarness.await(items + " items running", () -> h.running() == expected);
                TimeUnit.SECONDS.sleep(warmup);
                Step step = measure(h, cpu, seconds);
                if (!h.leader().isLeading()) {
                    throw new IllegalStateException("the leader lost its leadership during the " + rate + "/s step: "
                            + "the machine is too busy for this benchmark");
                }
                step.offered = rate;
                steps.add(step);
                String label = String.format(Locale.ROOT, "%,d results/s", rate);
                Findings.record(label, step.latency);
                Findings.record(label + ", at the leader (no Redis)", step.leaderLatency);
                Findings.fact("receivedPerSecond@" + rate, step.receivedPerSecond);
                Findings.fact("checked@" + rate, step.checked);
                Findings.fact("missing@" + rate, step.missing);
                Findings.fact("dropped@" + rate, step.dropped);
                System.err.printf(Locale.ROOT, "work-routing: %d/s offered, %.0f/s received, p99 %.2f ms%n", rate,
                        step.receivedPerSecond, step.latency.p99() / 1e6);
                table.row(String.format(Locale.ROOT, "%,d", rate), Integer.toString(items),
                        String.format(Locale.ROOT, "%,.0f", step.receivedPerSecond),
                        MarkdownTable.millis(step.latency.p50()),
                        MarkdownTable.millis(step.latency.p90()), MarkdownTable.millis(step.latency.p99()),
                        MarkdownTable.millis(step.p999), MarkdownTable.millis(step.latency.max()),
                        MarkdownTable.millis(step.leaderLatency.p50()) + " / "
                                + MarkdownTable.millis(step.leaderLatency.p99()),
                        Long.toString(step.resent), Long.toString(step.dropped),
                        String.format(Locale.ROOT, "%,d / %d", step.checked, step.missing),
                        String.format(Locale.ROOT, "%.2f", step.cpuCores));
            }
            out.println(table.render());
            out.println("\"Checked / missing\": each simulated worker numbers its results; the results of the measured"
                    + " window, per worker, must be an unbroken run of numbers. Missing are the holes: results lost"
                    + " on the way, or not re-sent before the window closed.");
            out.println();
            out.println("CPU per result received, in microseconds, by part (thread CPU time of this JVM's threads by"
                    + " name; the JVM's own is its process CPU minus its threads'; redis-server's from /proc):");
            out.println();
            out.println(cpuTable(steps));
            // Stop every item, let the last results land, then compare what the workers sent with what arrived.
            List<CompletableFuture<Boolean>> stopping = new ArrayList<>();
            for (int i = 0; i < subscribed; i++) {
                stopping.add(h.follower().unsubscribe("display-" + i + ";camera-" + i));
            }
            stopping.forEach(CompletableFuture::join);
            WorkHarness.await("every item stopped", () -> h.running() == 0);
            TimeUnit.SECONDS.sleep(2);
            Map<String, Long> leader = h.leader().counters().join();
            Map<String, Long> follower = h.follower().counters().join();
            long sent = h.detectionsSent();
            out.println("Over the whole run the workers sent " + sent + " results; the follower's listener got "
                    + follower.get("results") + " distinct ones (" + (sent - follower.get("results")) + " missing) and "
                    + follower.get("duplicates") + " duplicates; the leader routed " + leader.get("routed")
                    + ", re-sent " + leader.get("resent") + " unacknowledged and dropped " + leader.get("droppedUnacked")
                    + ".");
            out.println();
        }
    }

    private static String cpuTable(List<Step> steps) {
        String[] header = new String[steps.size() + 1];
        header[0] = "part";
        for (int i = 0; i < steps.size(); i++) {
            header[i + 1] = String.format(Locale.ROOT, "%,d/s", steps.get(i).offered);
        }
        MarkdownTable table = new MarkdownTable(header);
        List<String> parts = new ArrayList<>(List.of(CpuAccount.PARTS));
        parts.add("total");
        for (String part : parts) {
            String[] row = new String[steps.size() + 1];
            row[0] = part;
            for (int i = 0; i < steps.size(); i++) {
                Step step = steps.get(i);
                long nanos = part.equals("total") ? step.cpu.values().stream().mapToLong(Long::longValue).sum()
                        : step.cpu.get(part);
                row[i + 1] = String.format(Locale.ROOT, "%.1f", nanos / 1000.0 / Math.max(1, step.received));
            }
            table.row(row);
        }
        return table.render();
    }

    private Step measure(WorkHarness h, CpuAccount cpu, int seconds) throws InterruptedException {
        Map<String, Long> leaderBefore = h.leader().counters().join();
        Map<String, Long> partsBefore = cpu.snapshot();
        long cpuBefore = processCpuNanos();
        long start = System.nanoTime();
        Recorder r = new Recorder(seconds * 40_000);
        Recorder local = new Recorder(seconds * 4_000);
        recorder.set(r);
        atLeader.set(local);
        TimeUnit.SECONDS.sleep(seconds);
        recorder.set(null);
        atLeader.set(null);
        long elapsed = System.nanoTime() - start;
        long jvmCpu = processCpuNanos() - cpuBefore;
        Map<String, Long> parts = CpuAccount.since(partsBefore, cpu.snapshot());
        long[] samples = r.samples();
        Map<String, Long> leaderAfter = h.leader().counters().join();
        Step step = new Step();
        r.holes(h.workerOfSubscription(), step);
        step.latency = Summary.of(samples);
        step.leaderLatency = Summary.of(local.samples());
        long[] sorted = samples.clone();
        Arrays.sort(sorted);
        step.p999 = sorted[Math.min(sorted.length - 1, (int) Math.ceil(0.999 * sorted.length) - 1)];
        step.receivedPerSecond = samples.length / (elapsed / 1e9);
        step.received = samples.length;
        step.cpu = parts;
        step.resent = leaderAfter.get("resent") - leaderBefore.get("resent");
        step.dropped = leaderAfter.get("droppedUnacked") - leaderBefore.get("droppedUnacked");
        step.cpuCores = jvmCpu / (double) elapsed;
        return step;
    }

    private static long processCpuNanos() {
        var os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime();
        }
        return 0;
    }

    /** The follower's global listener: one call at a time, on its listener thread. */
    private void received(WorkerMessage.ImageDetection detection) {
        record(recorder, detection);
    }

    private static void record(AtomicReference<Recorder> into, WorkerMessage.ImageDetection detection) {
        Instant now = Instant.now();
        Recorder r = into.get();
        if (r != null) {
            r.add(Duration.between(Instant.parse(detection.timestamp()), now).toNanos(),
                    detection.subscriptionIdentifier(), number(detection));
        }
    }

    /** The number a simulated worker gave the result ({@code SIM-<n>}), or -1. */
    private static long number(WorkerMessage.ImageDetection detection) {
        String plate = detection.detection().licensePlateText();
        if (plate == null || !plate.startsWith("SIM-")) {
            return -1;
        }
        try {
            return Long.parseLong(plate, 4, plate.length(), 10);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static final class Step {
        Summary latency;
        Summary leaderLatency;
        long p999;
        int offered;
        double receivedPerSecond;
        long received;
        Map<String, Long> cpu;
        long resent;
        long dropped;
        double cpuCores;
        long checked;
        long missing;
    }

    /**
     * Latency samples of one window, written by the listener thread, read once the window closed; with each, the
     * result's item and the number its worker gave it ({@code SIM-<n>}), to find results that never arrived.
     */
    private static final class Recorder {
        private long[] values;
        private long[] numbers;
        private String[] items;
        private int size;

        Recorder(int expected) {
            values = new long[expected];
            numbers = new long[expected];
            items = new String[expected];
        }

        synchronized void add(long nanos, String item, long number) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
                numbers = Arrays.copyOf(numbers, size * 2);
                items = Arrays.copyOf(items, size * 2);
            }
            values[size] = nanos;
            numbers[size] = number;
            items[size] = item;
            size++;
        }

        synchronized long[] samples() {
            return Arrays.copyOf(values, size);
        }

        /**
         * Per worker, the numbers received should be an unbroken run (each worker numbers its results in the order
         * it sends them, and the leader routes them in that order); the holes are what is missing.
         */
        synchronized void holes(Map<String, Integer> workerOf, Step step) {
            Map<Integer, java.util.BitSet> seen = new java.util.HashMap<>();
            Map<Integer, long[]> range = new java.util.HashMap<>();
            for (int i = 0; i < size; i++) {
                Integer worker = workerOf.get(items[i]);
                if (worker == null || numbers[i] < 0) {
                    continue;
                }
                long[] minMax = range.computeIfAbsent(worker, w -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
                minMax[0] = Math.min(minMax[0], numbers[i]);
                minMax[1] = Math.max(minMax[1], numbers[i]);
            }
            for (int i = 0; i < size; i++) {
                Integer worker = workerOf.get(items[i]);
                if (worker == null || numbers[i] < 0) {
                    continue;
                }
                seen.computeIfAbsent(worker, w -> new java.util.BitSet())
                        .set((int) (numbers[i] - range.get(worker)[0]));
            }
            for (Map.Entry<Integer, long[]> e : range.entrySet()) {
                long span = e.getValue()[1] - e.getValue()[0] + 1;
                int distinct = seen.get(e.getKey()).cardinality();
                step.checked += span;
                step.missing += span - distinct;
            }
        }
    }
}

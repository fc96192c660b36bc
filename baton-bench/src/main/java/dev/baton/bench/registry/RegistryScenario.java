package dev.baton.bench.registry;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.backend.BackendKind;
import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.backend.PostgresBackend;
import dev.baton.bench.backend.RedisBackend;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Samples;
import dev.baton.bench.support.CommandMonitor;
import dev.baton.bench.support.Environment;
import dev.baton.core.Baton;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.Registry;
import dev.baton.core.StoreElection;
import dev.baton.core.store.CoordinationStore;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Scenario 4, the process registry: registers 10,000 processes (on PostgreSQL 1,000 and 10,000, or the sizes of
 * {@code --processes}) through {@code election.membership()}, then measures one process's heartbeat and listing every
 * process with {@code members()}, beside one raw round trip and a raw read of the registry for scale. On Redis it
 * also counts the commands a heartbeat costs ({@code INFO commandstats} deltas, split by {@code MONITOR} into client
 * round trips and commands run inside a script).
 */
public final class RegistryScenario implements Scenario {

    private static final List<Integer> REDIS_SIZES = List.of(10_000);
    private static final List<Integer> POSTGRES_SIZES = List.of(1_000, 10_000);
    private static final int IN_FLIGHT = 256;
    /** A listing's decode path needs about 15 calls before the JIT has compiled it; a leader lists far more often. */
    private static final int LISTING_WARMUP = 20;
    private static final int LISTINGS = 50;
    private static final int MONITORED_HEARTBEATS = 100;
    private static final long TIMEOUT_SECONDS = 10;

    @Override
    public String name() {
        return "registry";
    }

    @Override
    public String description() {
        return "10,000 registered processes (postgres: 1,000 and 10,000): heartbeat latency, commands per heartbeat"
                + " (redis), members() latency";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(1_000);
        int warmup = options.warmup(200);
        for (BackendKind kind : options.backends()) {
            List<Integer> sizes = options.processes(kind == BackendKind.REDIS ? REDIS_SIZES : POSTGRES_SIZES);
            try (BenchBackend backend = BenchBackend.start(kind)) {
                for (int processes : sizes) {
                    run(backend, processes, options.seed(), warmup, n, out);
                }
            }
        }
        out.flush();
    }

    private void run(BenchBackend backend, int processes, long seed, int warmup, int n, PrintStream out)
            throws Exception {
        String group = "bench-registry-" + processes;
        String count = String.format("%,d", processes);
        out.println("## Process registry at " + count + " processes" + backend.kind().headingSuffix());
        out.println();
        try (CoordinationStore store = backend.connect();
             StoreElection election = Baton.election(store).group(group).config(ElectionConfig.defaults()).build()) {
            out.println(Environment.machine() + ". " + backend.describe());
            out.println();
            Registry membership = election.membership();
            List<String> ids = new ArrayList<>();
            System.err.println("registry " + backend.kind().key() + ": registering " + processes + " processes ...");
            long registration = register(membership, processes, ids);
            out.println("Registered " + count + " processes through"
                    + " `election.membership().register(...)` (up to " + IN_FLIGHT + " in flight) in "
                    + MarkdownTable.millis(registration) + " ms (" + String.format("%,.0f", processes / (registration
                    / 1e9)) + " registrations/s). The election itself is not started, so nothing else runs.");
            out.println();

            Random random = new Random(seed);
            System.err.println("registry " + backend.kind().key() + ": heartbeats ...");
            Map<String, Long> before = backend instanceof RedisBackend redis ? redis.admin().commandCalls() : null;
            Samples heartbeats = heartbeats(membership, ids, random, warmup, n);
            String commands = null;
            if (backend instanceof RedisBackend redis) {
                Map<String, Long> after = redis.admin().commandCalls();
                CommandMonitor.Counts monitored = CommandMonitor.during(redis.server().host(), redis.server().port(),
                        redis.admin(), () -> heartbeatsUnchecked(membership, ids, random, MONITORED_HEARTBEATS));
                commands = commandTable(before, after, warmup + n, monitored);
            }
            System.err.println("registry " + backend.kind().key() + ": listings ...");
            Samples listings = listings(membership, processes);
            long[] entrySize = new long[1];
            Samples transfers = timed(LISTING_WARMUP, LISTINGS, () -> entrySize[0] = rawRead(backend, group));
            Samples roundTrips = timed(warmup, n, backend::roundTrip);

            LatencyReport report = new LatencyReport()
                    .add("heartbeat(id), one process", heartbeats.summary(), "sequential, random process")
                    .add(backend.roundTripName() + " (one round trip, for scale)", roundTrips.summary(),
                            backend.roundTripClient())
                    .add("members(), all " + count, listings.summary(), LISTING_WARMUP + " warm-up listings")
                    .add(rawReadName(backend), transfers.summary(), rawReadNote(backend, entrySize[0] / processes));
            out.println(report.table());
            if (commands != null) {
                out.println(commands);
            }
        }
    }

    /** Reads the whole registry of {@code group} without decoding it; returns its size in bytes (or characters). */
    private static long rawRead(BenchBackend backend, String group) throws Exception {
        if (backend instanceof RedisBackend redis) {
            // Layout documented on RedisStore: group G's registry hash is {G}:processes (empty key prefix).
            return redis.admin().hashValueBytes("{" + group + "}:processes");
        }
        return ((PostgresBackend) backend).registryRowChars(group);
    }

    private static String rawReadName(BenchBackend backend) {
        return backend instanceof RedisBackend ? "raw HGETALL of the registry hash"
                : "raw SELECT of the group's cluster_nodes rows";
    }

    private static String rawReadNote(BenchBackend backend, long perProcess) {
        return backend instanceof RedisBackend
                ? "transfer only, no decoding: " + String.format("%,d", perProcess) + " bytes of JSON per process"
                : "columns read as text; no lease join, no JSON unpacking, no NodeInfo: "
                        + String.format("%,d", perProcess) + " characters per process";
    }

    private static long register(Registry membership, int processes, List<String> ids) throws Exception {
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < processes; i++) {
            String id = String.format("process-%05d", i);
            ids.add(id);
            NodeInfo node = NodeInfo.of(id, "bench-worker")
                    .withApiAddress("http://127.0.0.1:" + (20_000 + i))
                    .withMetadata(Map.of("zone", "zone-" + (i % 3), "version", "1.4.2"));
            inFlight.acquire();
            pending.add(membership.register(node).whenComplete((ok, error) -> inFlight.release()));
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        long elapsed = System.nanoTime() - start;
        int listed = membership.members().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).size();
        if (listed != processes) {
            throw new IllegalStateException("registered " + processes + " processes but members() lists " + listed);
        }
        return elapsed;
    }

    private static Samples heartbeats(Registry membership, List<String> ids, Random random, int warmup, int n)
            throws Exception {
        return timed(warmup, n, () -> {
            String id = ids.get(random.nextInt(ids.size()));
            if (!membership.heartbeat(id).get(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("heartbeat of " + id + " found no live entry");
            }
        });
    }

    private static void heartbeatsUnchecked(Registry membership, List<String> ids, Random random, int count) {
        try {
            heartbeats(membership, ids, random, 0, count);
        } catch (Exception e) {
            throw new IllegalStateException("heartbeat failed while monitoring", e);
        }
    }

    private static Samples listings(Registry membership, int processes) throws Exception {
        return timed(LISTING_WARMUP, LISTINGS, () -> {
            List<NodeInfo> all = membership.members().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (all.size() != processes) {
                throw new IllegalStateException("members() listed " + all.size() + " of " + processes);
            }
        });
    }

    /** Something to time that may throw. */
    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    private static Samples timed(int warmup, int n, Action action) throws Exception {
        Samples samples = new Samples(warmup, n);
        for (int i = 0; i < warmup + n; i++) {
            long t0 = System.nanoTime();
            action.run();
            samples.add(System.nanoTime() - t0);
        }
        return samples;
    }

    private static String commandTable(Map<String, Long> before, Map<String, Long> after, int heartbeats,
            CommandMonitor.Counts monitored) {
        Map<String, Double> perHeartbeat = new TreeMap<>();
        after.forEach((command, calls) -> {
            long delta = calls - before.getOrDefault(command, 0L);
            if (delta > 0 && !command.equals("info")) {
                perHeartbeat.put(command, (double) delta / heartbeats);
            }
        });
        MarkdownTable table = new MarkdownTable("command", "calls per heartbeat (INFO commandstats)",
                "sent by the client (MONITOR)", "run inside a script (MONITOR)");
        perHeartbeat.forEach((command, calls) -> {
            String upper = command.toUpperCase(java.util.Locale.ROOT);
            table.row(command, String.format(java.util.Locale.ROOT, "%.2f", calls),
                    perMonitored(monitored.fromClients().getOrDefault(upper, 0)),
                    perMonitored(monitored.fromScripts().getOrDefault(upper, 0)));
        });
        table.row("**total**", String.format(java.util.Locale.ROOT, "%.2f",
                        perHeartbeat.values().stream().mapToDouble(Double::doubleValue).sum()),
                perMonitored(monitored.clientTotal()), perMonitored(monitored.scriptTotal()));
        return "Redis commands per heartbeat (commandstats over " + heartbeats + " heartbeats; MONITOR over "
                + MONITORED_HEARTBEATS + " more). Client commands are round trips; script commands run inside"
                + " the one EVALSHA:\n\n" + table.render();
    }

    private static String perMonitored(int count) {
        return String.format(java.util.Locale.ROOT, "%.2f", (double) count / MONITORED_HEARTBEATS);
    }
}

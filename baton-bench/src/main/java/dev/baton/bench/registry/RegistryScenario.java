package dev.baton.bench.registry;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Samples;
import dev.baton.bench.support.CommandMonitor;
import dev.baton.bench.support.Environment;
import dev.baton.bench.support.RedisAdmin;
import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.Membership;
import dev.baton.core.NodeInfo;
import dev.baton.redis.RedisStore;
import dev.baton.testkit.RedisServer;
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
 * Scenario 4, the process registry at 10,000 processes: registers them through {@code election.membership()},
 * then measures one process's heartbeat (latency, and the Redis commands it costs, counted with
 * {@code INFO commandstats} deltas and split by {@code MONITOR} into client round trips and commands run inside a
 * script) and listing every process with {@code members()}.
 */
public final class RegistryScenario implements Scenario {

    private static final int PROCESSES = 10_000;
    private static final String GROUP = "bench-registry";
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
        return "10,000 registered processes: heartbeat latency and commands per heartbeat, members() latency";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(1_000);
        int warmup = options.warmup(200);
        out.println("## Process registry at " + String.format("%,d", PROCESSES) + " processes");
        out.println();
        try (RedisServer redis = RedisServer.start(); RedisAdmin admin = RedisAdmin.connect(redis.uri());
             RedisStore store = RedisStore.connect(redis.uri());
             Election election = Baton.election(store).group(GROUP)
                     .config(ElectionConfig.defaults()).build()) {
            out.println(Environment.machine() + ". " + Environment.redis(admin, redis.uri()));
            out.println();
            Membership membership = election.membership();
            List<String> ids = new ArrayList<>();
            System.err.println("registry: registering " + PROCESSES + " processes ...");
            long registration = register(membership, ids);
            out.println("Registered " + String.format("%,d", PROCESSES) + " processes through"
                    + " `election.membership().register(...)` (up to " + IN_FLIGHT + " in flight) in "
                    + MarkdownTable.millis(registration) + " ms (" + String.format("%,.0f", PROCESSES / (registration
                    / 1e9)) + " registrations/s). The election itself is not started, so nothing else runs.");
            out.println();

            Random random = new Random(options.seed());
            System.err.println("registry: heartbeats ...");
            Map<String, Long> before = admin.commandCalls();
            Samples heartbeats = heartbeats(membership, ids, random, warmup, n);
            Map<String, Long> after = admin.commandCalls();
            CommandMonitor.Counts monitored = CommandMonitor.during(redis.host(), redis.port(), admin,
                    () -> heartbeatsUnchecked(membership, ids, random, MONITORED_HEARTBEATS));
            System.err.println("registry: listings ...");
            Samples listings = listings(membership);
            // Layout documented on RedisStore: group G's registry hash is {G}:processes (empty key prefix).
            long[] entryBytes = new long[1];
            Samples transfers = timed(LISTING_WARMUP, LISTINGS,
                    () -> entryBytes[0] = admin.hashValueBytes("{" + GROUP + "}:processes"));
            Samples pings = timed(warmup, n, () -> admin.commands().ping());

            LatencyReport report = new LatencyReport()
                    .add("heartbeat(id), one process", heartbeats.summary(), "sequential, random process")
                    .add("PING (one round trip, for scale)", pings.summary(), "Lettuce sync")
                    .add("members(), all " + String.format("%,d", PROCESSES), listings.summary(),
                            LISTING_WARMUP + " warm-up listings")
                    .add("raw HGETALL of the registry hash", transfers.summary(),
                            "transfer only, no decoding: " + String.format("%,d", entryBytes[0] / PROCESSES)
                                    + " bytes of JSON per process");
            out.println(report.table());
            out.println(commandTable(before, after, warmup + n, monitored));
        }
        out.flush();
    }

    private static long register(Membership membership, List<String> ids) throws Exception {
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < PROCESSES; i++) {
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
        if (listed != PROCESSES) {
            throw new IllegalStateException("registered " + PROCESSES + " processes but members() lists " + listed);
        }
        return elapsed;
    }

    private static Samples heartbeats(Membership membership, List<String> ids, Random random, int warmup, int n)
            throws Exception {
        return timed(warmup, n, () -> {
            String id = ids.get(random.nextInt(ids.size()));
            if (!membership.heartbeat(id).get(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("heartbeat of " + id + " found no live entry");
            }
        });
    }

    private static void heartbeatsUnchecked(Membership membership, List<String> ids, Random random, int count) {
        try {
            heartbeats(membership, ids, random, 0, count);
        } catch (Exception e) {
            throw new IllegalStateException("heartbeat failed while monitoring", e);
        }
    }

    private static Samples listings(Membership membership) throws Exception {
        return timed(LISTING_WARMUP, LISTINGS, () -> {
            List<NodeInfo> all = membership.members().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (all.size() != PROCESSES) {
                throw new IllegalStateException("members() listed " + all.size() + " of " + PROCESSES);
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

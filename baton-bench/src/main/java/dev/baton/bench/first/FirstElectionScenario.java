package dev.baton.bench.first;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.backend.BackendKind;
import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.backend.PostgresBackend;
import dev.baton.bench.backend.RedisBackend;
import dev.baton.bench.backend.StorePath;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.PhaseBreakdown;
import dev.baton.bench.stats.Samples;
import dev.baton.bench.stats.SideBySide;
import dev.baton.bench.support.Environment;
import dev.baton.bench.support.PeerVersions;
import dev.baton.bench.support.RedissonClients;
import dev.baton.bench.support.TracingStore;
import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.time.ExecutorScheduler;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Scenario 3, uncontested first election: {@code start()} -> {@code LeadershipAcquired}, on a store that is already
 * connected, with a new group name each time (so nothing is cached per group). The backend's reference is measured
 * the same way for comparison: on Redis, Redisson's uncontested {@code tryLock()} and {@code lock()} on a new lock
 * name each time; on PostgreSQL, {@code pg_try_advisory_lock} and {@code pg_advisory_lock} on a new key each time.
 */
public final class FirstElectionScenario implements Scenario {

    private static final long TIMEOUT_MILLIS = 10_000;
    private static final String BASELINE = "Baton start() -> acquired";

    /** Where the election's scheduler and listeners run. */
    private enum Threads {
        /** What users get by default: the election's own queues on the daemon threads its JVM's elections share. */
        OWN,
        /** Listeners run directly in the election's scheduler queue. */
        DIRECT_EVENTS,
        /** A scheduler and an event executor that are already running are passed in; no thread is created. */
        SUPPLIED
    }

    @Override
    public String name() {
        return "first-election";
    }

    @Override
    public String description() {
        return "uncontested start() -> LeadershipAcquired, new group each time (and Redisson tryLock/lock, or the"
                + " advisory lock on postgres)";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(200);
        int warmup = options.warmup(20);
        SideBySide sideBySide = new SideBySide();
        for (BackendKind kind : options.backends()) {
            sideBySide.add(kind.label(), run(kind, warmup, n, out));
        }
        if (sideBySide.size() > 1) {
            out.println("### Uncontested first election side by side (this run)");
            out.println();
            out.println(sideBySide.table());
        }
        out.flush();
    }

    private LatencyReport run(BackendKind kind, int warmup, int n, PrintStream out) throws Exception {
        out.println("## Uncontested first election" + kind.headingSuffix());
        out.println();
        LatencyReport report = new LatencyReport();
        List<String> breakdowns = new ArrayList<>();
        try (BenchBackend backend = BenchBackend.start(kind)) {
            out.println(Environment.machine() + ". " + backend.describe());
            out.println("n = " + n + " starts per row after " + warmup + " warm-up starts; t0 just before"
                    + " start() (or the reference's lock call), t1 in the LeadershipAcquired listener (or when the"
                    + " call returns). The store/client is connected once, before the first start.");
            out.println();
            System.err.println("first-election " + kind.key() + ": Baton ...");
            try (TracingStore store = new TracingStore(backend.connect());
                 ExecutorScheduler scheduler = new ExecutorScheduler("bench-shared")) {
                ExecutorService events = Executors.newSingleThreadExecutor();
                try {
                    Map<Threads, String> rows = new LinkedHashMap<>();
                    rows.put(Threads.OWN, BASELINE);
                    rows.put(Threads.DIRECT_EVENTS, "Baton, listener on Runnable::run");
                    rows.put(Threads.SUPPLIED, "Baton, threads already running");
                    for (Map.Entry<Threads, String> row : rows.entrySet()) {
                        BatonStarts starts = new BatonStarts(store, backend.path(), row.getKey(), scheduler, events,
                                warmup, n);
                        starts.run();
                        report.add(row.getValue(), starts.samples.summary(), note(row.getKey()));
                        breakdowns.add("Phases of **" + row.getValue() + "**" + kind.headingSuffix() + ":\n\n"
                                + starts.phases.table());
                    }
                } finally {
                    events.shutdownNow();
                }
            }
            if (backend instanceof RedisBackend redis) {
                System.err.println("first-election redis: Redisson ...");
                RedissonClient redisson = RedissonClients.create(redis.uri());
                try {
                    String version = PeerVersions.redisson();
                    report.add("Redisson tryLock() " + version, redisson(redisson, true, warmup, n).summary(),
                            "new lock name each time");
                    report.add("Redisson lock() " + version, redisson(redisson, false, warmup, n).summary(),
                            "new lock name each time");
                } finally {
                    redisson.shutdown(0, 2, TimeUnit.SECONDS);
                }
            }
            if (backend instanceof PostgresBackend postgres) {
                System.err.println("first-election postgres: advisory lock ...");
                try (Connection connection = postgres.openConnection()) {
                    report.add("pg_try_advisory_lock()", advisory(connection, true, warmup, n).summary(),
                            "session lock, pgjdbc, new key each time");
                    report.add("pg_advisory_lock()", advisory(connection, false, warmup, n).summary(),
                            "session lock, pgjdbc, new key each time");
                }
            }
        }
        out.println(report.table());
        out.println("Ratios (candidate / " + BASELINE + "):");
        out.println();
        out.println(report.ratios(BASELINE));
        breakdowns.forEach(out::println);
        out.flush();
        return report;
    }

    private static String note(Threads threads) {
        return switch (threads) {
            case OWN -> "defaults(); the election's scheduler and event queues on shared threads";
            case DIRECT_EVENTS -> "defaults(), eventExecutor(Runnable::run)";
            case SUPPLIED -> "scheduler(...) and eventExecutor(...) passed in, already running";
        };
    }

    /** Repeated uncontested starts of Baton elections on one store, each on a new group. */
    private static final class BatonStarts {
        private final TracingStore store;
        private final String prefix;
        private final Threads threads;
        private final ExecutorScheduler scheduler;
        private final ExecutorService events;
        private final int warmup;
        private final int n;
        private final Samples samples;
        private final PhaseBreakdown phases;

        BatonStarts(TracingStore store, StorePath path, Threads threads, ExecutorScheduler scheduler,
                ExecutorService events, int warmup, int n) {
            this.store = store;
            this.prefix = "bench-first-" + threads.name().toLowerCase(java.util.Locale.ROOT) + "-";
            this.threads = threads;
            this.scheduler = scheduler;
            this.events = events;
            this.warmup = warmup;
            this.n = n;
            this.samples = new Samples(warmup, n);
            Map<String, String> explained = new LinkedHashMap<>();
            explained.put("start() -> acquire sent", path.startToAcquire());
            explained.put("acquire round trip", path.firstAcquire());
            explained.put("granted -> listener (t1)", "hop to the election's queue, then to the listener's");
            this.phases = new PhaseBreakdown(warmup, n, explained);
        }

        void run() throws Exception {
            for (int i = 0; i < warmup + n; i++) {
                Baton.ElectionBuilder builder = Baton.election(store).group(prefix + i)
                        .config(ElectionConfig.defaults());
                if (threads == Threads.DIRECT_EVENTS) {
                    builder.eventExecutor(Runnable::run);
                } else if (threads == Threads.SUPPLIED) {
                    builder.scheduler(scheduler).eventExecutor(events);
                }
                try (Election election = builder.build()) {
                    CompletableFuture<Long> acquired = new CompletableFuture<>();
                    election.addListener(event -> {
                        if (event instanceof ElectionEvent.LeadershipAcquired) {
                            acquired.complete(System.nanoTime());
                        }
                    });
                    long t0 = System.nanoTime();
                    election.start();
                    long t1 = acquired.get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
                    samples.add(t1 - t0);
                    phases.record(t0, store.acquireCalled(), store.acquireGranted(), t1);
                } catch (TimeoutException e) {
                    throw new IllegalStateException("election " + prefix + i + " was not won within "
                            + TIMEOUT_MILLIS + " ms although uncontested", e);
                }
            }
        }
    }

    private static Samples redisson(RedissonClient client, boolean tryLock, int warmup, int n) {
        Samples samples = new Samples(warmup, n);
        String prefix = "bench-first-redisson-" + (tryLock ? "try-" : "lock-");
        for (int i = 0; i < warmup + n; i++) {
            RLock lock = client.getLock(prefix + i);
            long t0 = System.nanoTime();
            if (tryLock) {
                if (!lock.tryLock()) {
                    throw new IllegalStateException("uncontested tryLock() of " + prefix + i + " failed");
                }
            } else {
                lock.lock();
            }
            long t1 = System.nanoTime();
            samples.add(t1 - t0);
            lock.unlock();
        }
        return samples;
    }

    /**
     * Uncontested session advisory locks on one connection, a new key each time: t0 before the lock call is sent, t1
     * when it returns; the unlock afterwards is not timed.
     */
    private static Samples advisory(Connection connection, boolean tryLock, int warmup, int n) throws SQLException {
        Samples samples = new Samples(warmup, n);
        long base = tryLock ? 1_000_000_000L : 2_000_000_000L;
        try (PreparedStatement lock = connection.prepareStatement(
                tryLock ? "SELECT pg_try_advisory_lock(?)" : "SELECT pg_advisory_lock(?)");
             PreparedStatement unlock = connection.prepareStatement("SELECT pg_advisory_unlock(?)")) {
            for (int i = 0; i < warmup + n; i++) {
                lock.setLong(1, base + i);
                long t0 = System.nanoTime();
                try (ResultSet rs = lock.executeQuery()) {
                    long t1 = System.nanoTime();
                    samples.add(t1 - t0);
                    if (tryLock && (!rs.next() || !rs.getBoolean(1))) {
                        throw new IllegalStateException("uncontested pg_try_advisory_lock(" + (base + i) + ") failed");
                    }
                }
                unlock.setLong(1, base + i);
                unlock.executeQuery().close();
            }
        }
        return samples;
    }
}

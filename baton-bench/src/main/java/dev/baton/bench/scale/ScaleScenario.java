package dev.baton.bench.scale;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Summary;
import dev.baton.bench.support.Environment;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * One process holding many leader groups (one per job, tenant or shard): per system and per N, the time to lead N
 * uncontested groups, what holding them costs in a steady window (CPU, store work, heap, threads), the time to give
 * them all up, and, with a separate holder JVM killed by SIGKILL, how long each of its groups stays leaderless.
 * Every system runs on a private server of its own, with its default timings.
 */
public final class ScaleScenario implements Scenario {

    private static final List<Integer> DEFAULT_GROUPS = List.of(1, 100, 1_000, 10_000);

    @Override
    public String name() {
        return "scale";
    }

    @Override
    public String description() {
        return "one process holding N leader groups (--groups 1,100,1000,10000): elect all, steady CPU and store"
                + " calls, close all, SIGKILL of a holder of --killed-groups (Baton on Redis, PostgreSQL and etcd,"
                + " Redisson RLock, etcd's elections through jetcd)";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        List<Integer> sizes = options.groups(DEFAULT_GROUPS);
        Duration window = Duration.ofSeconds(options.windowSeconds(20));
        int killed = options.killedGroups(1_000);
        out.println("## One process holding N leader groups");
        out.println();
        out.println(Environment.machine() + ". Per row, this JVM starts N groups at once, all on one client"
                + " (one Baton store, one Redisson client, or one jetcd client), uncontested; \"elect all\" runs"
                + " from the first start until it leads the last. After a " + GroupRun.SETTLE.toSeconds()
                + " s settle (10 s more on PostgreSQL, whose statistics may report a burst that late), a "
                + window.toSeconds() + " s steady window: this JVM's CPU (process CPU time / wall time, as % of"
                + " one core), the store's own count of its work per second (read from the outside, the"
                + " readings left out), then heap in use after System.gc() and live threads (before the row in"
                + " brackets). \"close all\": every group given up at once, until the last is done; then each group's"
                + " lease (or lock) is read from the store, and any still there is counted: its release failed.");
        out.println();
        Random random = new Random(options.seed());
        boolean killedAny = false;
        MarkdownTable killTable = new MarkdownTable("system", "groups", "lease TTL", "led again",
                "kill -> new leader p50", "p99", "max");
        for (ScaleSystem system : ScaleSystem.values()) {
            if (options.includes(system.key())) {
                KilledHolder.Failover failover = run(system, sizes, window, killed, random, out);
                killedAny = true;
                killTable.row(system.label(), Integer.toString(failover.groups()),
                        failover.leaseTtl().toSeconds() + " s", failover.stopped().map(why -> "not measured: " + why)
                                .orElse(failover.ledAgain() + " of " + failover.groups()),
                        failover.killToLeader().map(s -> seconds(s.p50())).orElse("—"),
                        failover.killToLeader().map(s -> seconds(s.p99())).orElse("—"),
                        failover.killToLeader().map(s -> seconds(s.max())).orElse("—"));
            }
        }
        if (killedAny) {
            out.println("### A process holding " + killed + " groups is killed (SIGKILL)");
            out.println();
            out.println("A child JVM leads the groups; this JVM contends for the same groups on its client; the"
                    + " child is killed at a random point of its renewal cycle and, per group, the time from the"
                    + " kill until this JVM leads it is taken."
                    + " It includes the lease the killed process had left, which must run out first.");
            out.println();
            out.println(killTable.render());
        }
        out.flush();
    }

    private KilledHolder.Failover run(ScaleSystem system, List<Integer> sizes, Duration window, int killed,
            Random random, PrintStream out) throws Exception {
        System.err.println("scale: " + system.label() + " ...");
        try (BenchBackend backend = BenchBackend.start(system.backend());
             GroupClient client = system.connect(backend.uri(), killed)) {
            StoreCounter counter = StoreCounter.of(backend);
            out.println("### " + system.label());
            out.println();
            out.println(backend.describe() + " Timings: " + client.timings() + ".");
            out.println();
            MarkdownTable table = new MarkdownTable("groups", "elect all", "CPU, % of one core",
                    counter.unit() + "/s", "per group/s", "heap after GC, MB", "live threads", "close all");
            GroupRun run = new GroupRun(client, counter, window);
            for (int n : sizes) {
                GroupRun.Row row = run.measure(n, "g" + n + "-");
                table.row(Integer.toString(n), elect(row), format("%.1f", row.steady().cpuPercent()),
                        format("%,.0f", row.steady().storePerSecond()),
                        format("%.2f", row.steady().storePerSecond() / n),
                        format("%.0f (%.0f)", row.steady().footprint().heapMb(), row.before().heapMb()),
                        format("%d (%d)", row.steady().footprint().threads(), row.before().threads()),
                        close(row));
            }
            out.println(table.render());
            out.flush();
            try {
                return KilledHolder.measure(system, backend.uri(), client, killed, random);
            } catch (IllegalStateException e) {
                // The other systems still run: a system that cannot hold its groups under the kill is a result.
                System.err.println("scale: " + system.label() + ": killed holder not measured: " + e.getMessage());
                return KilledHolder.Failover.stopped(killed, client.leaseTtl(), e.getMessage());
            }
        }
    }

    private static String elect(GroupRun.Row row) {
        if (row.elected() < row.groups()) {
            return "did not elect all within " + GroupRun.ELECT_TIMEOUT.toSeconds() + " s (" + row.elected()
                    + " of " + row.groups() + ")";
        }
        return MarkdownTable.millis(row.electNanos()) + " ms";
    }

    private static String close(GroupRun.Row row) {
        String time = row.closed() ? MarkdownTable.millis(row.closeNanos()) + " ms"
                : "not all closed within " + GroupRun.CLOSE_TIMEOUT.toSeconds() + " s";
        return row.stillHeld() == 0 ? time : time + format("; %,d of %,d leases still held", row.stillHeld(),
                row.groups());
    }

    private static String seconds(long nanos) {
        return format("%.2f s", nanos / 1e9);
    }

    private static String format(String pattern, Object... args) {
        return String.format(Locale.ROOT, pattern, args);
    }
}

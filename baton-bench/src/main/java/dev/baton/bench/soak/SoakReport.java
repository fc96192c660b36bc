package dev.baton.bench.soak;

import dev.baton.bench.soak.NodeProbes.Health;
import dev.baton.bench.soak.NodeProbes.Resources;
import dev.baton.bench.soak.SoakNode.LeadershipEvent;
import dev.baton.bench.soak.SoakSchedule.Phase;
import dev.baton.bench.soak.SteadyLoad.Outcome;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Summary;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.function.ToLongFunction;

/**
 * Turns what the soak recorded into Markdown: per cluster one row per phase (the leader's health latency, the
 * slowest node's, failed probes, the largest thread count, heap and RSS of any node, leadership events, HTTP errors),
 * then one row per node over the whole run, then the verdict.
 */
final class SoakReport {

    /** One cluster as the report sees it: its nodes and the leader it had when the measurement began. */
    record Cluster(String name, List<SoakNode> nodes, SoakNode leader, long term) {
    }

    private static final long GOAL_NANOS = 1_000_000_000L;
    private static final double MIB = 1024.0 * 1024.0;

    private final List<Phase> phases;
    private final long t0;
    private final long end;
    private final NodeProbes probes;
    private final List<Outcome> outcomes;

    SoakReport(List<Phase> phases, long t0, long end, NodeProbes probes, List<Outcome> outcomes) {
        this.phases = phases;
        this.t0 = t0;
        this.end = end;
        this.probes = probes;
        this.outcomes = outcomes;
    }

    /** The per-phase table of {@code cluster}, with the flood lines of the phases that touched it. */
    void printPhases(PrintStream out, Cluster cluster, Map<Integer, String> floodLines) {
        MarkdownTable table = new MarkdownTable("#", "phase", "from min", "leader health p50 / p99 / max ms",
                "slowest node health max ms", "failed probes", "threads max", "heap max MiB", "RSS max MiB",
                "leadership events", "HTTP errors / requests");
        for (Phase phase : phases) {
            long from = t0 + phase.from().toNanos();
            long to = t0 + phase.to().toNanos();
            LongPredicate in = at -> at >= from && at < to;
            long[] leaderLatencies = probes.health(cluster.leader()).stream().filter(h -> in.test(h.atNanos()))
                    .mapToLong(Health::latencyNanos).toArray();
            long slowest = 0;
            long failed = 0;
            for (SoakNode node : cluster.nodes()) {
                for (Health h : probes.health(node)) {
                    if (in.test(h.atNanos())) {
                        slowest = Math.max(slowest, h.latencyNanos());
                        failed += h.ok() ? 0 : 1;
                    }
                }
            }
            table.row(String.valueOf(phase.index()), phase.kind().label(),
                    String.format(Locale.ROOT, "%.1f", phase.from().toMillis() / 60_000.0),
                    triple(leaderLatencies), MarkdownTable.millis(slowest), String.valueOf(failed),
                    String.valueOf(max(cluster, in, Resources::threads)),
                    mib(max(cluster, in, Resources::heapBytes)), mib(max(cluster, in, Resources::rssBytes)),
                    String.valueOf(leadershipEvents(cluster, in)), errors(cluster, in));
        }
        out.println(table.render());
        phases.stream().filter(p -> floodLines.containsKey(p.index()))
                .forEach(p -> out.println("- phase " + p.index() + ", " + p.kind().label() + ": "
                        + floodLines.get(p.index())));
        out.println();
    }

    /** One row per node over the whole run: peaks, health in quiet and flood phases, failed probes, events. */
    void printNodes(PrintStream out, List<Cluster> clusters) {
        MarkdownTable table = new MarkdownTable("node", "cluster", "role", "threads max", "heap max MiB",
                "RSS max MiB", "health max quiet ms", "health max floods ms", "failed probes", "error lines",
                "leadership events");
        for (Cluster cluster : clusters) {
            for (SoakNode node : cluster.nodes()) {
                LongPredicate all = at -> at >= t0 && at < end;
                long quiet = 0;
                long flood = 0;
                long failed = 0;
                for (Health h : probes.health(node)) {
                    if (!all.test(h.atNanos())) {
                        continue;
                    }
                    if (floodAt(h.atNanos())) {
                        flood = Math.max(flood, h.latencyNanos());
                    } else {
                        quiet = Math.max(quiet, h.latencyNanos());
                    }
                    failed += h.ok() ? 0 : 1;
                }
                Cluster one = new Cluster(cluster.name(), List.of(node), node, cluster.term());
                table.row(node.name(), cluster.name(), node == cluster.leader() ? "leader" : "follower",
                        String.valueOf(max(one, all, Resources::threads)), mib(max(one, all, Resources::heapBytes)),
                        mib(max(one, all, Resources::rssBytes)), MarkdownTable.millis(quiet),
                        MarkdownTable.millis(flood), String.valueOf(failed), String.valueOf(node.errorLines()),
                        String.valueOf(leadershipEvents(one, all)));
            }
        }
        out.println(table.render());
    }

    /**
     * The pass condition for {@code cluster}: its leader kept the leadership (no leadership event on any node and no
     * other term named by any node during the measurement) and answered every health probe with 200 within 1 s.
     */
    String verdict(Cluster cluster) {
        LongPredicate all = at -> at >= t0 && at < end;
        long events = leadershipEvents(cluster, all);
        long otherTerms = cluster.nodes().stream().flatMap(n -> probes.resources(n).stream())
                .filter(r -> all.test(r.atNanos()) && r.term() > 0 && r.term() != cluster.term())
                .mapToLong(Resources::term).distinct().count();
        List<Health> leaderHealth = probes.health(cluster.leader()).stream().filter(h -> all.test(h.atNanos()))
                .toList();
        long slow = leaderHealth.stream().filter(h -> !h.ok() || h.latencyNanos() > GOAL_NANOS).count();
        long maxNanos = leaderHealth.stream().mapToLong(Health::latencyNanos).max().orElse(0);
        boolean pass = events == 0 && otherTerms == 0 && slow == 0 && !leaderHealth.isEmpty();
        return String.format(Locale.ROOT, "%s cluster: %s. Leader %s (term %d): %d leadership events, %d other terms"
                + " seen; %d health probes of the leader, %d failed or slower than 1 s, slowest %s ms.",
                cluster.name(), pass ? "PASS" : "FAIL", cluster.leader().name(), cluster.term(), events, otherTerms,
                leaderHealth.size(), slow, MarkdownTable.millis(maxNanos));
    }

    private boolean floodAt(long at) {
        for (Phase p : phases) {
            if (at >= t0 + p.from().toNanos() && at < t0 + p.to().toNanos()) {
                return p.kind().isFlood();
            }
        }
        return false;
    }

    private long max(Cluster cluster, LongPredicate in, ToLongFunction<Resources> field) {
        long max = -1;
        for (SoakNode node : cluster.nodes()) {
            for (Resources r : probes.resources(node)) {
                if (in.test(r.atNanos())) {
                    max = Math.max(max, field.applyAsLong(r));
                }
            }
        }
        return max;
    }

    private static long leadershipEvents(Cluster cluster, LongPredicate in) {
        long count = 0;
        for (SoakNode node : cluster.nodes()) {
            for (LeadershipEvent e : node.leadershipEvents()) {
                count += in.test(e.atNanos()) ? 1 : 0;
            }
        }
        return count;
    }

    private String errors(Cluster cluster, LongPredicate in) {
        long requests = 0;
        long failed = 0;
        for (Outcome o : outcomes) {
            if (in.test(o.atNanos()) && cluster.nodes().stream().anyMatch(n -> n.name().equals(o.node()))) {
                requests++;
                failed += o.ok() ? 0 : 1;
            }
        }
        return failed + " / " + requests;
    }

    private static String triple(long[] latencies) {
        if (latencies.length == 0) {
            return "-";
        }
        Summary s = Summary.of(latencies);
        return MarkdownTable.millis(s.p50()) + " / " + MarkdownTable.millis(s.p99()) + " / "
                + MarkdownTable.millis(s.max());
    }

    private static String mib(long bytes) {
        return bytes < 0 ? "-" : String.format(Locale.ROOT, "%.0f", bytes / MIB);
    }
}

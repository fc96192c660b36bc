package dev.baton.bench.peer;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Summary;
import dev.baton.bench.support.Environment;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.transport.PeerAddress;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Cold start of a large quorum cluster on the simulated network: every node starts at the same virtual instant and
 * the clock runs until exactly one node leads, every node follows it, and the leader's table has every node
 * {@code ACTIVE}. The time is compared with 3 x ttlTimeout (the goal: converged within that of the start). Two kinds
 * of cold start: a brand-new cluster (no node has saved state, so each must recover before it votes) and a cluster
 * restarted from its data directories. Each run uses its own seed; after converging, the cluster must stay converged
 * for another 3 x ttlTimeout.
 */
public final class PeerConvergenceScenario implements Scenario {

    private static final int SEEDS = 3;
    private static final Duration STEP = Duration.ofMillis(1);
    private static final LinkConditions LINK = LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(5));

    @Override
    public String name() {
        return "peer-convergence";
    }

    @Override
    public String description() {
        return "simulated 100-node quorum cluster: cold start -> one leader and every member active (virtual time)";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int runs = options.n(20);
        long seed = options.seed();
        out.println("## Serverless quorum: cold start of a simulated cluster (`peer-convergence`)");
        out.println();
        out.println(Environment.machine() + ". Virtual time on `SimulatedNetwork` (links 1-5 ms, no loss), so the"
                + " machine's load does not change the result. " + SEEDS + " seeds; every node starts at the same"
                + " instant, in random order. Converged = exactly one valid leader, every node follows it, and its"
                + " table has every node ACTIVE (checked every " + STEP.toMillis() + " ms of virtual time). "
                + runs + " runs per row, seeds " + seed + "..." + (seed + runs - 1) + ".");
        out.println();
        MarkdownTable table = new MarkdownTable("N", "profile (ttlTimeout)", "cold start", "converged p50",
                "p90", "max", "max / ttlTimeout", "goal 3 x ttlTimeout", "stayed converged");
        for (int size : new int[] {100, 25, 5}) {
            for (String profile : new String[] {"fast", "default"}) {
                for (boolean saved : new boolean[] {false, true}) {
                    row(table, size, profile, saved, runs, seed);
                }
            }
        }
        out.println(table.render());
    }

    private void row(MarkdownTable table, int size, String profile, boolean saved, int runs, long seed) {
        Duration ttl = QuorumConfig.profile(profile).clusterSize(1).seeds(PeerAddress.of("n1", 7400)).build()
                .ttlTimeout();
        Duration goal = ttl.multipliedBy(3);
        List<Long> times = new ArrayList<>();
        int failed = 0;
        int unstable = 0;
        for (int run = 0; run < runs; run++) {
            SimulatedQuorum cluster = new SimulatedQuorum(size, SEEDS, QuorumConfig.profile(profile), LINK,
                    seed + run).startAll(saved);
            Optional<Duration> took = cluster.advanceUntilConverged(goal.multipliedBy(4), STEP);
            if (took.isEmpty()) {
                failed++;
                System.err.printf("peer-convergence N=%d %s %s seed %d: not converged within %s%n", size,
                        profile, saved ? "saved" : "new", seed + run, goal.multipliedBy(4));
                continue;
            }
            times.add(took.get().toNanos());
            if (!staysConverged(cluster, goal)) {
                unstable++;
            }
            System.err.printf("peer-convergence N=%d %s %s seed %d: %d ms%n", size, profile,
                    saved ? "saved" : "new", seed + run, took.get().toMillis());
        }
        String kind = saved ? "restart from data dirs" : "brand-new (recovery first)";
        if (times.isEmpty()) {
            table.row(String.valueOf(size), profile + " (" + ttl.toMillis() + " ms)", kind, "none converged", "",
                    "", "", "missed", "");
            return;
        }
        Summary s = Summary.of(times.stream().mapToLong(Long::longValue).toArray());
        boolean met = failed == 0 && s.max() <= goal.toNanos();
        table.row(String.valueOf(size), profile + " (" + ttl.toMillis() + " ms)", kind, seconds(s.p50()),
                seconds(s.p90()), seconds(s.max()),
                String.format(Locale.ROOT, "%.2f", (double) s.max() / ttl.toNanos()),
                (met ? "met" : "missed") + (failed > 0 ? " (" + failed + " of " + runs + " not converged)" : ""),
                (times.size() - unstable) + " of " + times.size());
    }

    /** Advances 3 x ttlTimeout more, checking every step that the cluster stays converged. */
    private static boolean staysConverged(SimulatedQuorum cluster, Duration span) {
        Duration end = cluster.elapsed().plus(span);
        while (cluster.elapsed().compareTo(end) < 0) {
            cluster.advance(STEP.multipliedBy(50));
            if (!cluster.converged()) {
                return false;
            }
        }
        return true;
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }
}

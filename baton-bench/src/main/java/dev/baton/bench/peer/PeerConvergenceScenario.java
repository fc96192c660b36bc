package dev.baton.bench.peer;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Summary;
import dev.baton.bench.support.Environment;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.sim.LinkConditions;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Cold start of a quorum cluster on the simulated network: every node starts within one heartbeatInterval of the first
 * and the clock runs until exactly one node leads, every node follows it, and the leader's table has every node
 * {@code ACTIVE}. The time is compared with 3 x ttlTimeout (the goal: converged within that of the start). Two kinds of
 * cold start: a brand-new cluster (no node has saved state, so each must recover before it votes) and a cluster
 * restarted from its data directories. Each run has its own seed; after converging, the cluster must stay converged
 * for another 3 x ttlTimeout.
 */
public final class PeerConvergenceScenario implements Scenario {

    private static final int SEEDS = 3;
    private static final int[] SIZES = {100, 25, 5};
    private static final String[] PROFILES = {"fast", "default"};
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
                + " machine's load does not change the result. " + SEEDS + " seeds; every node starts at a random"
                + " instant within one heartbeatInterval of the first, and times count from the first start."
                + " Converged = exactly one valid leader, every node follows it, and its table has every node"
                + " ACTIVE (checked every " + STEP.toMillis() + " ms of virtual time). " + runs + " runs per row,"
                + " seeds " + seed + "-" + (seed + runs - 1) + ".");
        out.println();
        MarkdownTable table = new MarkdownTable("N", "profile (ttlTimeout)", "cold start", "first leader p50",
                "converged p50", "p90", "max", "max / ttlTimeout", "goal: max <= 3 x ttlTimeout",
                "stayed converged");
        for (int size : SIZES) {
            for (String profile : PROFILES) {
                for (boolean saved : new boolean[] {false, true}) {
                    row(table, size, profile, saved, runs, seed);
                }
            }
        }
        out.println(table.render());
    }

    private void row(MarkdownTable table, int size, String profile, boolean saved, int runs, long seed) {
        List<Long> firstLeader = new ArrayList<>();
        List<Long> converged = new ArrayList<>();
        int failed = 0;
        int unstable = 0;
        Duration ttl = null;
        for (int run = 0; run < runs; run++) {
            SimulatedQuorum cluster = new SimulatedQuorum(size, SEEDS, QuorumConfig.profile(profile), LINK,
                    seed + run);
            ttl = cluster.config().ttlTimeout();
            cluster.startAll(saved, cluster.config().heartbeatInterval());
            Optional<SimulatedQuorum.Convergence> took = cluster.advanceUntilConverged(ttl.multipliedBy(12), STEP);
            String label = String.format(Locale.ROOT, "peer-convergence N=%d %s %s seed %d", size, profile,
                    saved ? "restart" : "new", seed + run);
            if (took.isEmpty()) {
                failed++;
                System.err.println(label + ": not converged within 12 x ttlTimeout");
                continue;
            }
            firstLeader.add(took.get().firstLeader().toNanos());
            converged.add(took.get().converged().toNanos());
            if (!staysConverged(cluster, ttl.multipliedBy(3))) {
                unstable++;
            }
            System.err.println(label + ": first leader " + took.get().firstLeader().toMillis() + " ms, converged "
                    + took.get().converged().toMillis() + " ms");
        }
        String kind = saved ? "restart from data dirs" : "brand-new (recovery first)";
        String profileCell = profile + " (" + ttl.toMillis() + " ms)";
        if (converged.isEmpty()) {
            table.row(String.valueOf(size), profileCell, kind, "—", "none converged", "—", "—", "—", "missed", "—");
            return;
        }
        Summary first = summary(firstLeader);
        Summary all = summary(converged);
        boolean met = failed == 0 && all.max() <= ttl.multipliedBy(3).toNanos();
        table.row(String.valueOf(size), profileCell, kind, seconds(first.p50()), seconds(all.p50()),
                seconds(all.p90()), seconds(all.max()),
                String.format(Locale.ROOT, "%.2f", (double) all.max() / ttl.toNanos()),
                (met ? "met" : "missed") + (failed > 0 ? " (" + failed + " of " + runs + " not converged)" : ""),
                (converged.size() - unstable) + " of " + converged.size());
    }

    /** Advances {@code span} more, checking every 50 ms that the cluster stays converged. */
    private static boolean staysConverged(SimulatedQuorum cluster, Duration span) {
        Duration end = cluster.elapsed().plus(span);
        while (cluster.elapsed().compareTo(end) < 0) {
            cluster.advance(Duration.ofMillis(50));
            if (!cluster.converged()) {
                return false;
            }
        }
        return true;
    }

    private static Summary summary(List<Long> nanos) {
        return Summary.of(nanos.stream().mapToLong(Long::longValue).toArray());
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
    }
}

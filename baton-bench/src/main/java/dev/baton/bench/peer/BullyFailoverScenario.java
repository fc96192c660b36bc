package dev.baton.bench.peer;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.PhaseBreakdown;
import dev.baton.bench.stats.Samples;
import dev.baton.bench.support.Environment;
import dev.baton.peer.bully.BullyConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Crash failover of the bully protocol: five {@code PeerNode bully} JVMs on loopback TCP (fast profile) sharing a
 * file leader store. Each round the leader's process is killed with SIGKILL and the time until another node's
 * {@code LeadershipAcquired} listener runs (with a larger term) is taken, split at the first survivor's
 * {@code ElectionStarted} (detection: a survivor confirmed the leader's failure: missed pings, then the indirect
 * probe) and the election that follows. The killed node is started again (a new process: it joins through the store
 * under the next process id and, being the highest, takes over after the hold-down); the next round waits until the
 * group is whole and its leadership has stood still for a hold-down.
 */
public final class BullyFailoverScenario implements Scenario {

    private static final int NODES = 5;
    private static final String GROUP = "bench-bully-failover";
    private static final long START_TIMEOUT_SECONDS = 90;
    private static final long FAILOVER_TIMEOUT_MILLIS = 15_000;
    private static final long STABLE_TIMEOUT_MILLIS = 60_000;

    private final PeerProcess[] nodes = new PeerProcess[NODES];
    private final BlockingQueue<PeerProcess.Event> events = new LinkedBlockingQueue<>();

    @Override
    public String name() {
        return "bully-failover";
    }

    @Override
    public String description() {
        return "bully protocol, 5 node JVMs on loopback TCP, file leader store: SIGKILL of the leader -> next"
                + " LeadershipAcquired";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(30);
        int warmup = options.warmup(2);
        Random random = new Random(options.seed());
        BullyConfig config = BullyConfig.fast().build();
        out.println("## Bully protocol: crash failover (`bully-failover`)");
        out.println();
        try (PeerWorkspace workspace = new PeerWorkspace(name(), NODES)) {
            Path store = workspace.root().resolve("leader.json");
            out.println(Environment.machine() + ". " + NODES + " node JVMs (`PeerNode bully`: `Bully.tcp(...)`,"
                    + " BullyConfig.fast(): pingInterval " + config.pingInterval().toMillis() + " ms, suspectAfter "
                    + config.suspectAfter() + ", probeTimeout " + config.probeTimeout().toMillis()
                    + " ms, electionTimeout " + config.electionTimeout().toMillis() + " ms, holdDown "
                    + config.holdDown().toMillis() + " ms) on 127.0.0.1, one `FileLeaderStore` under "
                    + workspace.root().getParent() + ". " + n + " kills after " + warmup + " warm-up kills. Before"
                    + " each kill the group is whole (all five follow one leader, which has all five ACTIVE) and its"
                    + " leadership has not moved for a hold-down, then a random 0-"
                    + config.pingInterval().toMillis() + " ms pass, so kills land anywhere in the ping cycle. The"
                    + " killed node is started again after each kill (a new process, a new process id). Times from"
                    + " different processes are compared on System.nanoTime() (CLOCK_MONOTONIC on Linux).");
            out.println();
            try {
                for (int i = 0; i < NODES; i++) {
                    nodes[i] = PeerProcess.startBully(i, workspace.address(i), store, GROUP, events);
                }
                for (PeerProcess node : nodes) {
                    node.awaitReady(START_TIMEOUT_SECONDS);
                }
                measure(workspace, store, config, random, warmup, n, out);
                workspace.completed();
            } finally {
                for (PeerProcess node : nodes) {
                    if (node != null) {
                        node.stop();
                    }
                }
            }
        }
        out.flush();
    }

    private void measure(PeerWorkspace workspace, Path store, BullyConfig config, Random random, int warmup, int n,
            PrintStream out) throws Exception {
        Samples failover = new Samples(warmup, n);
        Map<String, String> explained = new LinkedHashMap<>();
        explained.put("kill -> first survivor opens a round", "detection: " + config.suspectAfter()
                + " unanswered pings (one every " + config.pingInterval().toMillis() + " ms), then an indirect"
                + " probe through another member that fails too (within " + config.probeTimeout().toMillis()
                + " ms)");
        explained.put("round opens -> acquired", "election: ELECTION to the higher processes (the dead leader among"
                + " them unless the candidate had confirmed it itself: then up to electionTimeout "
                + config.electionTimeout().toMillis() + " ms without an ANSWER), the store read and the"
                + " compare-and-set write of the next term, then the new leader's listener runs");
        PhaseBreakdown phases = new PhaseBreakdown(warmup, n, explained);
        for (int k = 1; k <= warmup + n; k++) {
            PeerProcess leader = awaitStable(config);
            long term = leader.ledTerm();
            Thread.sleep(random.nextInt((int) config.pingInterval().toMillis()));
            PeerProcess.Failover round = PeerProcess.killAndAwaitSuccessor(leader, term, events,
                    FAILOVER_TIMEOUT_MILLIS);
            long killAt = round.killAt();
            long detected = round.detectedAt();
            PeerProcess.Event next = round.acquired();
            failover.add(next.atNanos() - killAt);
            if (detected != 0) {
                phases.record(killAt, detected, next.atNanos());
            }
            System.err.printf("bully-failover %d: %.1f ms (detection %.1f ms), term %d -> %d%n", k,
                    (next.atNanos() - killAt) / 1e6, detected == 0 ? Double.NaN : (detected - killAt) / 1e6, term,
                    next.term());
            leader.awaitExit(10);
            nodes[leader.slot()] = PeerProcess.startBully(leader.slot(), workspace.address(leader.slot()), store,
                    GROUP, events);
        }
        awaitStable(config);
        out.println(new LatencyReport().add("SIGKILL -> next leader acquired", failover.summary(),
                "goal p50/p99 <= 2 s").table());
        out.println("Where the time goes:");
        out.println();
        out.println(phases.table());
    }

    /**
     * Waits until all five follow one leader of one term, whose table has all five ACTIVE, and that leadership has
     * stood for a hold-down plus a second (a newly joined higher process takes over within a hold-down of joining).
     */
    private PeerProcess awaitStable(BullyConfig config) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STABLE_TIMEOUT_MILLIS);
        long stableFor = config.holdDown().toNanos() + TimeUnit.SECONDS.toNanos(1);
        PeerProcess candidate = null;
        long candidateTerm = 0;
        long since = 0;
        while (System.nanoTime() - deadline < 0) {
            PeerProcess leader = wholeUnder();
            long now = System.nanoTime();
            if (leader == null || leader != candidate || leader.ledTerm() != candidateTerm) {
                candidate = leader;
                candidateTerm = leader == null ? 0 : leader.ledTerm();
                since = now;
            } else if (now - since >= stableFor) {
                return leader;
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
        throw new IllegalStateException("the group was not whole and stable within " + STABLE_TIMEOUT_MILLIS + " ms");
    }

    /** The leader, if all five follow it under its term and it has all five ACTIVE; else null. */
    private PeerProcess wholeUnder() throws Exception {
        PeerProcess leader = null;
        for (PeerProcess node : nodes) {
            if (node.ledTerm() > 0 && (leader == null || node.ledTerm() > leader.ledTerm())) {
                leader = node;
            }
        }
        if (leader == null || leader.activeMembers() != NODES) {
            return null;
        }
        String id = leader.nodeId(START_TIMEOUT_SECONDS);
        for (PeerProcess node : nodes) {
            if (!node.leaderId().equals(id) || node.leaderTerm() != leader.ledTerm()) {
                return null;
            }
        }
        return leader;
    }
}

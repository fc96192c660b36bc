package dev.baton.bench.peer;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.PhaseBreakdown;
import dev.baton.bench.stats.Samples;
import dev.baton.bench.support.Environment;
import dev.baton.peer.quorum.QuorumConfig;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Crash failover of the serverless quorum: five {@link PeerNode} JVMs on loopback TCP (fast profile, each with its
 * own data directory). Each round the leader's process is killed with SIGKILL and the time until another node's
 * {@code LeadershipAcquired} listener runs (with a larger term) is taken, split at the first survivor's
 * {@code ElectionStarted} (detection: the survivors notice the silent leader after ttlTimeout) and the election that
 * follows. The killed node is then started again on the same address and data directory, and the next round waits
 * until the cluster is whole: all five follow one leader, which has all five ACTIVE in its table.
 */
public final class PeerFailoverScenario implements Scenario {

    private static final int NODES = 5;
    private static final int SEEDS = 3;
    private static final String GROUP = "bench-peer-failover";
    private static final long START_TIMEOUT_SECONDS = 90;
    private static final long FAILOVER_TIMEOUT_MILLIS = 15_000;
    private static final long WHOLE_TIMEOUT_MILLIS = 60_000;
    /** A restarted node's JVM start-up takes both cores for a while: let it finish before the next kill. */
    private static final long SETTLE_MILLIS = 2_000;

    private final PeerProcess[] nodes = new PeerProcess[NODES];
    private final BlockingQueue<PeerProcess.Event> events = new LinkedBlockingQueue<>();

    @Override
    public String name() {
        return "peer-failover";
    }

    @Override
    public String description() {
        return "serverless quorum, 5 node JVMs on loopback TCP: SIGKILL of the leader -> next LeadershipAcquired";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(30);
        int warmup = options.warmup(2);
        Random random = new Random(options.seed());
        out.println("## Serverless quorum: crash failover (`peer-failover`)");
        out.println();
        try (PeerWorkspace workspace = new PeerWorkspace(name(), NODES)) {
            QuorumConfig config = QuorumConfig.fast().clusterSize(NODES)
                    .seeds(workspace.addresses().subList(0, SEEDS)).build();
            out.println(Environment.machine() + ". " + NODES + " node JVMs (`PeerNode`: `Quorum.tcp(...)`,"
                    + " QuorumConfig.fast(): heartbeatInterval " + config.heartbeatInterval().toMillis()
                    + " ms, heartbeatTimeout " + config.heartbeatTimeout().toMillis() + " ms, ttlTimeout "
                    + config.ttlTimeout().toMillis() + " ms, retryInterval " + config.retryInterval().toMillis()
                    + " ms) on 127.0.0.1, " + SEEDS + " seeds, data directories under "
                    + workspace.root().getParent() + ". " + n + " kills after " + warmup + " warm-up kills. Before"
                    + " each kill the cluster is whole (all five follow one leader, which has all five ACTIVE),"
                    + " then " + SETTLE_MILLIS / 1000 + " s plus a random 0-" + config.heartbeatInterval().toMillis()
                    + " ms pass, so kills land anywhere in the heartbeat cycle. The killed node is restarted on the"
                    + " same address and data directory after each kill. Times from different processes are"
                    + " compared on System.nanoTime() (CLOCK_MONOTONIC on Linux: one clock for the machine).");
            out.println();
            try {
                for (int i = 0; i < NODES; i++) {
                    start(i, workspace, config);
                }
                for (PeerProcess node : nodes) {
                    node.awaitReady(START_TIMEOUT_SECONDS);
                }
                measure(workspace, config, random, warmup, n, out);
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

    private void start(int slot, PeerWorkspace workspace, QuorumConfig config) throws Exception {
        nodes[slot] = PeerProcess.start(slot, workspace.address(slot), config.seeds(), NODES,
                workspace.dataDir(slot), GROUP, events);
    }

    private void measure(PeerWorkspace workspace, QuorumConfig config, Random random, int warmup, int n,
            PrintStream out) throws Exception {
        Samples failover = new Samples(warmup, n);
        Map<String, String> explained = new LinkedHashMap<>();
        explained.put("kill -> first survivor opens a round", "detection: a follower drops the leader once it has"
                + " heard no acknowledgement for ttlTimeout (checked every heartbeatInterval)");
        explained.put("round opens -> acquired", "election: status query (M nodes must see the leader unhealthy),"
                + " pre-proposal and formal proposal (votes fsynced; refused and retried while some acceptors still"
                + " heard the old leader within ttlTimeout); the acceptances are the new leader's first majority;"
                + " then its listener runs");
        PhaseBreakdown phases = new PhaseBreakdown(warmup, n, explained);
        for (int k = 1; k <= warmup + n; k++) {
            PeerProcess leader = awaitWhole();
            long term = leader.ledTerm();
            Thread.sleep(SETTLE_MILLIS + random.nextInt((int) config.heartbeatInterval().toMillis()));
            if (leader.ledTerm() != term || awaitWhole() != leader) {
                throw new IllegalStateException("leadership moved without a kill (term " + term + ")");
            }
            PeerProcess.Failover round = PeerProcess.killAndAwaitSuccessor(leader, term, events,
                    FAILOVER_TIMEOUT_MILLIS);
            long killAt = round.killAt();
            long detected = round.detectedAt();
            PeerProcess.Event next = round.acquired();
            failover.add(next.atNanos() - killAt);
            if (detected != 0) {
                phases.record(killAt, detected, next.atNanos());
            }
            System.err.printf("peer-failover %d: %.1f ms (detection %.1f ms), term %d -> %d%n", k,
                    (next.atNanos() - killAt) / 1e6, detected == 0 ? Double.NaN : (detected - killAt) / 1e6, term,
                    next.term());
            leader.awaitExit(10);
            start(leader.slot(), workspace, config);
        }
        awaitWhole();
        out.println(new LatencyReport().add("SIGKILL -> next leader acquired", failover.summary(),
                "goal p99 <= 2 s").table());
        out.println("Where the time goes:");
        out.println();
        out.println(phases.table());
    }

    /** Waits until all five follow one leader of one term, whose table has all five ACTIVE; returns the leader. */
    private PeerProcess awaitWhole() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WHOLE_TIMEOUT_MILLIS);
        while (System.nanoTime() - deadline < 0) {
            PeerProcess leader = null;
            for (PeerProcess node : nodes) {
                if (node.ledTerm() > 0 && (leader == null || node.ledTerm() > leader.ledTerm())) {
                    leader = node;
                }
            }
            if (leader != null && leader.activeMembers() == NODES && allFollow(leader)) {
                return leader;
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
        throw new IllegalStateException("the cluster was not whole within " + WHOLE_TIMEOUT_MILLIS + " ms");
    }

    private boolean allFollow(PeerProcess leader) throws Exception {
        String id = leader.nodeId(START_TIMEOUT_SECONDS);
        for (PeerProcess node : nodes) {
            if (!node.leaderId().equals(id) || node.leaderTerm() != leader.ledTerm()) {
                return false;
            }
        }
        return true;
    }
}

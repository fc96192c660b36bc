package dev.baton.bench.peer;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.PhaseBreakdown;
import dev.baton.bench.stats.Samples;
import dev.baton.bench.support.Environment;
import dev.baton.core.ClusterStatus;
import dev.baton.core.ElectionEvent;
import dev.baton.core.MemberState;
import dev.baton.core.NodeInfo;
import dev.baton.peer.quorum.Quorum;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.quorum.QuorumElection;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Graceful hand-over on the serverless quorum: five nodes in this JVM, each with its own {@code NettyTransport} on a
 * loopback port and its own data directory (votes synced to disk), fast profile. Each round the leader is closed and
 * the time from the {@code close()} call to the next leader's {@code LeadershipAcquired} listener is taken; then a
 * node is started again on the closed one's address and data directory, and the next round waits until the cluster
 * is whole (one leader, followed by all five, all five {@code ACTIVE} in its table).
 */
public final class PeerHandoverScenario implements Scenario {

    private static final int NODES = 5;
    private static final int SEEDS = 3;
    private static final String GROUP = "bench-handover";
    private static final long HANDOVER_TIMEOUT_MILLIS = 10_000;
    private static final long WHOLE_TIMEOUT_MILLIS = 30_000;

    /** An event of one node: which node, its term (acquired) and the listener's {@link System#nanoTime()}. */
    private record Seen(int node, long term, long atNanos) {
    }

    private final QuorumElection[] nodes = new QuorumElection[NODES];
    private final BlockingQueue<Seen> acquired = new LinkedBlockingQueue<>();
    private final BlockingQueue<Seen> started = new LinkedBlockingQueue<>();

    @Override
    public String name() {
        return "peer-handover";
    }

    @Override
    public String description() {
        return "serverless quorum, 5 nodes on loopback TCP: leader close() -> next leader's LeadershipAcquired";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(200);
        int warmup = options.warmup(20);
        out.println("## Serverless quorum: graceful hand-over (`peer-handover`)");
        out.println();
        try (PeerWorkspace workspace = new PeerWorkspace(name(), NODES)) {
            QuorumConfig config = QuorumConfig.fast().clusterSize(NODES)
                    .seeds(workspace.addresses().subList(0, SEEDS)).build();
            out.println(Environment.machine() + ". " + NODES + " `QuorumElection`s in one JVM, each on its own"
                    + " `NettyTransport` (127.0.0.1, own port) with its own data directory under " + workspace.root()
                    .getParent() + " (votes fsynced), " + SEEDS + " seeds, QuorumConfig.fast(). " + n
                    + " hand-overs after " + warmup + " warm-up ones. Each: `close()` on the leader, timed from the"
                    + " call to the `LeadershipAcquired` listener of the next leader (a larger term); then a node is"
                    + " started on the closed one's address and data directory and the next round waits until all"
                    + " five follow one leader and are ACTIVE in its table.");
            out.println();
            try {
                for (int i = 0; i < NODES; i++) {
                    startNode(i, workspace, config);
                }
                measure(workspace, config, warmup, n, out);
                workspace.completed();
            } finally {
                for (QuorumElection node : nodes) {
                    if (node != null) {
                        node.closeAsync();
                    }
                }
                for (QuorumElection node : nodes) {
                    if (node != null) {
                        node.close();
                    }
                }
            }
        }
        out.flush();
    }

    private void startNode(int index, PeerWorkspace workspace, QuorumConfig config) {
        QuorumElection election = Quorum.tcp(workspace.address(index))
                .group(GROUP)
                .config(config)
                .node(NodeInfo.of("ignored", "node-" + index))
                .dataDir(workspace.dataDir(index))
                .build();
        election.addListener(event -> {
            long now = System.nanoTime();
            if (event instanceof ElectionEvent.LeadershipAcquired a) {
                acquired.add(new Seen(index, a.leadership().term(), now));
            } else if (event instanceof ElectionEvent.ElectionStarted) {
                started.add(new Seen(index, 0, now));
            }
        });
        nodes[index] = election;
        election.start();
    }

    private void measure(PeerWorkspace workspace, QuorumConfig config, int warmup, int n, PrintStream out)
            throws Exception {
        Samples handover = new Samples(warmup, n);
        Map<String, String> explained = new LinkedHashMap<>();
        explained.put("close() -> successor's round opens", "the leader stops, its listeners return, it sends"
                + " LeaderResign; the named successor opens its election round on receipt");
        explained.put("round opens -> acquired", "pre-proposal and formal proposal (each vote fsynced first),"
                + " NewLeader, a majority echoes the new leader's stamp; then its listener runs");
        PhaseBreakdown phases = new PhaseBreakdown(warmup, n, explained);
        int fallbacks = 0;
        for (int round = 1; round <= warmup + n; round++) {
            int leader = awaitWhole();
            long term = nodes[leader].leadership().orElseThrow().term();
            acquired.clear();
            started.clear();
            long closeAt = System.nanoTime();
            nodes[leader].close();
            Seen next = nextLeader(leader, term);
            Seen opened = roundOpenedOn(next.node(), closeAt);
            handover.add(next.atNanos() - closeAt);
            if (opened != null) {
                phases.record(closeAt, opened.atNanos(), next.atNanos());
            } else {
                fallbacks++;
            }
            System.err.printf("peer-handover %d: %.2f ms (term %d -> %d)%n", round,
                    (next.atNanos() - closeAt) / 1e6, term, next.term());
            startNode(leader, workspace, config);
        }
        awaitWhole();
        LatencyReport report = new LatencyReport().add("close() -> next leader acquired", handover.summary(),
                "goal p99 <= 10 ms");
        out.println(report.table());
        out.println("Where the time goes:");
        out.println();
        out.println(phases.table());
        if (fallbacks > 0) {
            out.println("Rounds where the new leader opened no round after the close (not split): " + fallbacks
                    + ".");
            out.println();
        }
    }

    /** The first acquisition of a term above {@code term} by another node. */
    private Seen nextLeader(int closed, long term) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HANDOVER_TIMEOUT_MILLIS);
        while (true) {
            Seen seen = acquired.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (seen == null) {
                throw new IllegalStateException("no new leader within " + HANDOVER_TIMEOUT_MILLIS + " ms of closing"
                        + " node-" + closed);
            }
            if (seen.node() != closed && seen.term() > term) {
                return seen;
            }
        }
    }

    /** The last round the new leader opened after the close, if any. */
    private Seen roundOpenedOn(int node, long after) {
        Seen found = null;
        for (Seen seen : started) {
            if (seen.node() == node && seen.atNanos() - after >= 0) {
                found = seen;
            }
        }
        return found;
    }

    /** Waits until one node leads, all five follow it and its table has all five ACTIVE; returns its index. */
    private int awaitWhole() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WHOLE_TIMEOUT_MILLIS);
        while (System.nanoTime() - deadline < 0) {
            int leader = -1;
            for (int i = 0; i < NODES; i++) {
                if (nodes[i].isLeader()) {
                    leader = leader < 0 ? i : -2;
                }
            }
            if (leader >= 0 && allFollow(leader)) {
                ClusterStatus status = nodes[leader].status().get(5, TimeUnit.SECONDS);
                long active = status.members().stream().filter(m -> m.state() == MemberState.ACTIVE).count();
                if (active == NODES) {
                    return leader;
                }
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        throw new IllegalStateException("the cluster was not whole within " + WHOLE_TIMEOUT_MILLIS + " ms");
    }

    private boolean allFollow(int leader) {
        String id = nodes[leader].nodeId();
        for (QuorumElection node : nodes) {
            if (node.leader().map(info -> !info.nodeId().equals(id)).orElse(true)) {
                return false;
            }
        }
        return true;
    }
}

package dev.baton.bench.peer;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.PhaseBreakdown;
import dev.baton.bench.stats.Samples;
import dev.baton.bench.stats.Summary;
import dev.baton.bench.support.Environment;
import dev.baton.core.ClusterStatus;
import dev.baton.core.ElectionEvent;
import dev.baton.core.MemberState;
import dev.baton.core.NodeInfo;
import dev.baton.peer.quorum.AcceptorState;
import dev.baton.peer.quorum.DurableState;
import dev.baton.peer.quorum.FileDurableState;
import dev.baton.peer.quorum.InMemoryDurableState;
import dev.baton.peer.quorum.Quorum;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.quorum.QuorumElection;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Graceful hand-over on the serverless quorum: five nodes in this JVM, each with its own {@code NettyTransport} on a
 * loopback port, fast profile. Each round the leader hands over and the time from the call to the next leader's
 * {@code LeadershipAcquired} listener is taken. Rounds alternate between {@code close()} (after which a node is started
 * again on the closed one's address and saved state, so that there are always five) and {@code stepDown()}, so that
 * both see the same conditions. Every round starts once the cluster is whole (one leader, followed by all five, all
 * five {@code ACTIVE} in its table) and a short pause has passed, so that no round starts while a node just restarted
 * is still warming up. Two passes: votes in data directories (fsynced, as in production), then votes kept in memory
 * across restarts, which separates the disk from the rest; the cost of one vote write is measured alongside.
 */
public final class PeerHandoverScenario implements Scenario {

    private static final int NODES = 5;
    private static final int SEEDS = 3;
    private static final String GROUP = "bench-handover";
    private static final long HANDOVER_TIMEOUT_MILLIS = 10_000;
    private static final long WHOLE_TIMEOUT_MILLIS = 30_000;
    /** A pause before every round once the cluster is whole, so that no round starts on a node just restarted. */
    private static final long SETTLE_MILLIS = 250;

    /** An event of one node: which node, its term (acquired) and the listener's {@link System#nanoTime()}. */
    private record Seen(int node, long term, long atNanos) {
    }

    private enum Handover {
        CLOSE("leader close() -> next leader acquired"),
        STEP_DOWN("leader stepDown() -> next leader acquired");

        final String label;

        Handover(String label) {
            this.label = label;
        }
    }

    /** Where the nodes keep their votes. */
    private enum Storage {
        DISK("disk", "votes on disk"),
        MEMORY("memory", "votes in memory");

        final String key;
        final String label;

        Storage(String key, String label) {
            this.key = key;
            this.label = label;
        }
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
        return "serverless quorum, 5 nodes on loopback TCP: leader close() / stepDown() -> next LeadershipAcquired";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(200);
        int warmup = options.warmup(100);
        out.println("## Serverless quorum: graceful hand-over (`peer-handover`)");
        out.println();
        try (PeerWorkspace workspace = new PeerWorkspace(name(), NODES)) {
            QuorumConfig config = QuorumConfig.fast().clusterSize(NODES)
                    .seeds(workspace.addresses().subList(0, SEEDS)).build();
            out.println(Environment.machine() + ". " + NODES + " `QuorumElection`s in one JVM, each on its own"
                    + " `NettyTransport` (127.0.0.1, own port), " + SEEDS + " seeds, QuorumConfig.fast(). Rounds"
                    + " alternate between `close()` and `stepDown()`: " + n + " of each after " + warmup
                    + " warm-up rounds (JIT), each timed from the call on the leader to the `LeadershipAcquired`"
                    + " listener of the next leader (a larger term). After a `close()` a node is started on the"
                    + " closed one's address and saved state; every round starts " + SETTLE_MILLIS + " ms after all"
                    + " five follow one leader and are ACTIVE in its table. Two passes, each on a new cluster: votes"
                    + " in each node's data directory under " + workspace.root().getParent() + " (written and"
                    + " fsynced before a vote is sent, as in production), then votes kept in memory across the"
                    + " restarts (what a disk that never stalls would give).");
            out.println();
            out.println(voteWrite(workspace.root().resolve("calibration")));
            out.println();
            LatencyReport report = new LatencyReport();
            Map<String, PhaseBreakdown> phases = new LinkedHashMap<>();
            for (Storage storage : Storage.values()) {
                pass(storage, workspace, config, warmup, n, report, phases);
            }
            workspace.completed();
            out.println(report.table());
            phases.forEach((label, split) -> {
                out.println("Where the time goes, " + label + ":");
                out.println();
                out.println(split.table());
            });
        }
        out.flush();
    }

    /** One cluster on {@code storage}: warm-up rounds, then {@code n} close() and {@code n} stepDown() rounds. */
    private void pass(Storage storage, PeerWorkspace workspace, QuorumConfig config, int warmup, int n,
            LatencyReport report, Map<String, PhaseBreakdown> phases) throws Exception {
        Map<Handover, Samples> samples = new LinkedHashMap<>();
        Map<Handover, PhaseBreakdown> split = new LinkedHashMap<>();
        for (Handover kind : Handover.values()) {
            samples.put(kind, new Samples(warmup / 2, n));
            split.put(kind, newBreakdown(warmup / 2, n));
        }
        DurableState[] states = new DurableState[NODES];
        for (int i = 0; i < NODES; i++) {
            states[i] = storage == Storage.DISK ? new FileDurableState(workspace.dataDir(i).resolve(storage.key))
                    : new InMemoryDurableState();
        }
        try {
            for (int i = 0; i < NODES; i++) {
                startNode(i, workspace, config, states[i]);
            }
            for (int round = 0; round < warmup + 2 * n; round++) {
                Handover kind = Handover.values()[round % 2];
                handOver(kind, storage, round, workspace, config, states, samples.get(kind), split.get(kind));
            }
            awaitWhole();
        } finally {
            for (QuorumElection node : nodes) {
                if (node != null) {
                    node.closeAsync();
                }
            }
            for (int i = 0; i < NODES; i++) {
                if (nodes[i] != null) {
                    nodes[i].close();
                    nodes[i] = null;
                }
            }
        }
        for (Handover kind : Handover.values()) {
            String label = kind.label + ", " + storage.label;
            report.add(label, samples.get(kind).summary(), "goal p99 <= 10 ms");
            phases.put(label, split.get(kind));
        }
    }

    private static PhaseBreakdown newBreakdown(int warmup, int n) {
        Map<String, String> explained = new LinkedHashMap<>();
        explained.put("call -> successor's round opens", "the leader stops, its listeners return, it sends"
                + " LeaderResign; the named successor opens its election round on receipt");
        explained.put("round opens -> acquired", "formal proposal under the hand-over ballot, no pre-proposal (each"
                + " vote fsynced first); the acceptances are the new leader's majority; then its listener runs");
        return new PhaseBreakdown(warmup, n, explained);
    }

    private void startNode(int index, PeerWorkspace workspace, QuorumConfig config, DurableState state)
            throws InterruptedException {
        QuorumElection election = bind(index, workspace, config, state);
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

    /** One round: waits until the cluster is whole, hands over, records the time; after a close, re-adds a node. */
    private void handOver(Handover kind, Storage storage, int round, PeerWorkspace workspace, QuorumConfig config,
            DurableState[] states, Samples samples, PhaseBreakdown phases) throws Exception {
        awaitWhole();
        TimeUnit.MILLISECONDS.sleep(SETTLE_MILLIS);
        int leader = awaitWhole();
        long term = nodes[leader].leadership().orElseThrow().term();
        acquired.clear();
        started.clear();
        long calledAt = System.nanoTime();
        if (kind == Handover.CLOSE) {
            nodes[leader].close();
        } else {
            nodes[leader].stepDown();
        }
        Seen next = nextLeader(leader, term);
        samples.add(next.atNanos() - calledAt);
        Seen opened = roundOpenedOn(next.node(), calledAt);
        if (opened != null) {
            phases.record(calledAt, opened.atNanos(), next.atNanos());
        }
        System.err.printf("peer-handover %s %d %s: %.2f ms (term %d -> %d)%n", storage.key, round, kind,
                (next.atNanos() - calledAt) / 1e6, term, next.term());
        if (kind == Handover.CLOSE) {
            startNode(leader, workspace, config, states[leader]);
        }
    }

    /**
     * Builds node {@code index}, which binds its port. {@code close()} returns once the hand-over has gone out, and the
     * closed node's transport releases the port a moment later, so a node started on that port right after may find
     * it still in use: retried for up to five seconds.
     */
    private static QuorumElection bind(int index, PeerWorkspace workspace, QuorumConfig config, DurableState state)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            try {
                return Quorum.tcp(workspace.address(index))
                        .group(GROUP)
                        .config(config)
                        .node(NodeInfo.of("ignored", "node-" + index))
                        .durableState(state)
                        .build();
            } catch (IllegalStateException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(10);
            }
        }
    }

    /** The first acquisition of a term above {@code term} by another node. */
    private Seen nextLeader(int previous, long term) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HANDOVER_TIMEOUT_MILLIS);
        while (true) {
            Seen seen = acquired.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (seen == null) {
                throw new IllegalStateException("no new leader within " + HANDOVER_TIMEOUT_MILLIS + " ms of node-"
                        + previous + " handing over");
            }
            if (seen.node() != previous && seen.term() > term) {
                return seen;
            }
        }
    }

    /** The last round the new leader opened after the call, if any. */
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

    /** One vote write (one slot of the vote log, one fdatasync) on the disk the nodes use, 200 times. */
    private static String voteWrite(Path directory) throws Exception {
        Files.createDirectories(directory);
        FileDurableState state = new FileDurableState(directory);
        long[] samples = new long[200];
        for (int i = 0; i < 20 + samples.length; i++) {
            long start = System.nanoTime();
            state.store(new AcceptorState(i + 1, 0, true, i + 1, null, null, null, 0));
            if (i >= 20) {
                samples[i - 20] = System.nanoTime() - start;
            }
        }
        state.close();
        Summary s = Summary.of(samples);
        return "One vote write on this disk (`FileDurableState.store`: one 4 KiB slot of the vote log written, one"
                + " fdatasync), measured in this run: p50 " + MarkdownTable.millis(s.p50()) + " ms, p99 "
                + MarkdownTable.millis(s.p99()) + " ms. A hand-over waits for two in a row: the acceptors' and,"
                + " in parallel, the successor's own.";
    }
}

package dev.baton.bench.failover;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Samples;
import dev.baton.bench.stats.Summary;
import dev.baton.bench.support.Environment;
import dev.baton.core.ElectionConfig;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.Lease;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * How long a group goes without a leader on each store deployment ({@link StoreTopology}), single servers beside
 * replicated ones, in one run: three {@link BenchNode} JVMs ({@link ElectionConfig#fast()}: TTL 3 s) per deployment,
 * and three kinds of sample, each with the group back at three nodes and settled first.
 *
 * <ul>
 *   <li><b>handover</b>: the leader's election is closed (its stdin closes, it releases) → the next {@code acquired}
 *       line;</li>
 *   <li><b>crash failover beyond the lease</b>: the leader's JVM is SIGKILLed → the next {@code acquired}, less the
 *       lease left at the kill (as the {@code failover} scenario measures it; on a store that reports it only in
 *       whole seconds, one TTL after the leader sent its last call the store granted);</li>
 *   <li><b>store failover → leader</b>: the store's primary is SIGKILLed (then restarted, or another server
 *       promoted); from the moment its processes are gone → the reply to the first lease call (a renewal or an
 *       acquisition) sent after that moment that the store granted: the first time a leader acted on the store that
 *       serves now, as the nodes report it ({@code renewed} and {@code acquired} lines);</li>
 *   <li>and, for context, <b>store failover alone</b>: from the same moment → the restart or promotion has returned,
 *       a primary accepting writes again (it may accept some before the call returns).</li>
 * </ul>
 */
public final class StoreFailoverScenario implements Scenario {

    private static final int NODES = 3;
    private static final long START_TIMEOUT_SECONDS = 60;
    private static final int START_ATTEMPTS = 3;
    private static final long LEADER_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long SETTLE_MILLIS = 2_000;
    private static final long POLL_MILLIS = 5;
    private static final long OUTPUT_TIMEOUT_SECONDS = 10;
    private static final long TTL_NANOS = ElectionConfig.fast().leaseTtl().toNanos();

    /** The four rows of one deployment. */
    private record Result(Deployment info, Summary handover, Summary crash, Summary storeAlone,
            Summary storeToLeader, int misses) {
    }

    /** What the tables say about a deployment, kept once its servers are stopped. */
    private record Deployment(String name, String describe, String failoverNote) {
    }

    @Override
    public String name() {
        return "store-failover";
    }

    @Override
    public String description() {
        return "per store deployment (" + String.join(", ", StoreTopology.ALL.keySet()) + "): handover, crash "
                + "failover beyond the lease, store failover -> a leader on the new primary";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(8);
        int warmup = options.warmup(1);
        Random random = new Random(options.seed());
        List<Result> results = new ArrayList<>();
        for (Map.Entry<String, Supplier<StoreTopology>> entry : StoreTopology.ALL.entrySet()) {
            if (options.includes(entry.getKey())) {
                results.add(measure(entry.getValue(), warmup, n, random));
            }
        }
        out.println("## Failover per store deployment");
        out.println();
        out.println(Environment.machine() + ". 3 node JVMs per deployment (`BenchNode`, ElectionConfig.fast(): TTL"
                + " 3 s, renew every 1 s, check every 500 ms); " + n + " samples of each kind after " + warmup
                + " warm-up, each after a " + SETTLE_MILLIS / 1000 + " s settle plus a random 0-1 s. Times in ms.");
        out.println();
        MarkdownTable table = new MarkdownTable("deployment", "handover p50", "handover p99",
                "crash beyond lease p50", "crash beyond lease p99", "store failover alone p50",
                "store failover alone p99", "store failover → leader p50", "store failover → leader p99",
                "misses");
        for (Result r : results) {
            table.row(r.info().name(), ms(r.handover().p50()), ms(r.handover().p99()), ms(r.crash().p50()),
                    ms(r.crash().p99()), ms(r.storeAlone().p50()), ms(r.storeAlone().p99()),
                    ms(r.storeToLeader().p50()), ms(r.storeToLeader().p99()), Integer.toString(r.misses()));
        }
        out.println(table.render());
        for (Result r : results) {
            out.println("- `" + r.info().name() + "`: " + r.info().describe() + "; store failover: "
                    + r.info().failoverNote() + ".");
        }
        out.println();
        out.flush();
    }

    private Result measure(Supplier<StoreTopology> start, int warmup, int n, Random random) throws Exception {
        BlockingQueue<NodeProcess.Acquired> acquisitions = new LinkedBlockingQueue<>();
        BlockingQueue<NodeProcess.Grant> grants = new LinkedBlockingQueue<>();
        NodeProcess[] nodes = new NodeProcess[NODES];
        try (StoreTopology topology = start.get(); CoordinationStore observer = BenchBackend.connect(topology.uri())) {
            Deployment info = new Deployment(topology.name(), topology.describe(),
                    topology.failoverNote());
            System.err.println("store-failover: " + info.name() + " on " + topology.uri().replaceAll(":[^:@/]*@", "@"));
            try {
                for (int i = 0; i < NODES; i++) {
                    nodes[i] = startNode(topology.name() + "-" + i, topology, acquisitions, grants);
                }
                Samples handover = new Samples(warmup, n);
                Samples crash = new Samples(warmup, n);
                Samples storeAlone = new Samples(warmup, n);
                Samples storeToLeader = new Samples(warmup, n);
                int misses = 0;
                for (int k = 1; k <= warmup + n; k++) {
                    boolean seen = handover(nodes, topology, observer, acquisitions, grants, random, handover, false);
                    misses += seen ? 0 : 1;
                }
                for (int k = 1; k <= warmup + n; k++) {
                    boolean seen = handover(nodes, topology, observer, acquisitions, grants, random, crash, true);
                    misses += seen ? 0 : 1;
                }
                for (int k = 1; k <= warmup + n; k++) {
                    misses += storeFailover(topology, observer, grants, random, storeAlone, storeToLeader) ? 0 : 1;
                }
                return new Result(info, handover.summary(), crash.summary(), storeAlone.summary(),
                        storeToLeader.summary(), misses);
            } finally {
                for (NodeProcess node : nodes) {
                    if (node != null) {
                        node.stop();
                    }
                }
            }
        }
    }

    /**
     * One handover ({@code crash} false: the leader's election closes) or crash failover ({@code crash} true: SIGKILL,
     * the lease left at the kill subtracted); the node is started again afterwards. False if no new leader came.
     */
    private boolean handover(NodeProcess[] nodes, StoreTopology topology, CoordinationStore observer,
            BlockingQueue<NodeProcess.Acquired> acquisitions, BlockingQueue<NodeProcess.Grant> grants, Random random,
            Samples samples, boolean crash) throws Exception {
        settle(random);
        Lease lease = awaitLease(observer);
        int slot = slotOf(nodes, lease.owner());
        NodeProcess.Acquired leader = new NodeProcess.Acquired(nodes[slot], lease.term(), 0, 0, 0);
        acquisitions.clear();
        long from;
        if (crash) {
            FailoverScenario.Kill kill = FailoverScenario.kill(leader, observer);
            from = kill.expiresAt();
        } else {
            from = System.nanoTime();
            nodes[slot].stop();
        }
        NodeProcess.Acquired next = nextLeader(acquisitions, leader);
        if (crash && topology.coarseRemaining() && nodes[slot].awaitOutputRead(OUTPUT_TIMEOUT_SECONDS)) {
            from = nodes[slot].lastGrantSent() + TTL_NANOS;
        }
        boolean seen = next != null;
        if (seen) {
            samples.add(next.atNanos() - from);
            System.err.printf("store-failover %s %s: %.1f ms%n", topology.name(), crash ? "crash" : "handover",
                    (next.atNanos() - from) / 1e6);
        }
        nodes[slot].awaitExit(10);
        nodes[slot] = startNode(nodes[slot].name(), topology, acquisitions, grants);
        return seen;
    }

    /**
     * Starts a node and waits until its first round resolved. A node whose store did not connect within its timeout
     * exits (a JVM starting on a machine whose cores are busy can miss it); it is started again, three times at most.
     */
    private static NodeProcess startNode(String name, StoreTopology topology,
            BlockingQueue<NodeProcess.Acquired> acquisitions, BlockingQueue<NodeProcess.Grant> grants)
            throws Exception {
        for (int attempt = 1; ; attempt++) {
            NodeProcess node = NodeProcess.start(name, topology.uri(), FailoverScenario.GROUP, acquisitions, grants);
            try {
                node.awaitReady(START_TIMEOUT_SECONDS);
                return node;
            } catch (ExecutionException e) {
                node.stop();
                if (attempt == START_ATTEMPTS) {
                    throw new IllegalStateException(name + " did not start " + START_ATTEMPTS + " times", e);
                }
                System.err.println("store-failover: " + name + " exited at start (" + e.getCause().getMessage()
                        + "); starting it again");
            }
        }
    }

    /** One store failover; false if no leader acted on the new primary within 30 s. */
    private boolean storeFailover(StoreTopology topology, CoordinationStore observer,
            BlockingQueue<NodeProcess.Grant> grants, Random random, Samples alone, Samples toLeader)
            throws Exception {
        settle(random);
        awaitLease(observer);
        grants.clear();
        topology.killPrimary();
        // From the moment the primary is surely gone: a call sent before may have been granted by the server that was
        // killed, and one sent after can only be granted by the store that serves next.
        long killAt = System.nanoTime();
        topology.recover();
        long storeBack = System.nanoTime();
        Long actedAt = firstGrantSentAfter(grants, killAt);
        if (actedAt != null) {
            alone.add(storeBack - killAt);
            toLeader.add(actedAt - killAt);
            System.err.printf("store-failover %s store: back after %.1f ms, leader acted after %.1f ms%n",
                    topology.name(), (storeBack - killAt) / 1e6, (actedAt - killAt) / 1e6);
        }
        topology.restore();
        awaitLease(observer);
        return actedAt != null;
    }

    /** When the store granted the first lease call sent after {@code from}, or null if none within 30 s of it. */
    private static Long firstGrantSentAfter(BlockingQueue<NodeProcess.Grant> grants, long from)
            throws InterruptedException {
        long deadline = from + LEADER_TIMEOUT_NANOS;
        while (true) {
            long left = deadline - System.nanoTime();
            NodeProcess.Grant grant = grants.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            if (grant == null) {
                return null;
            }
            if (grant.sentNanos() - from >= 0) {
                return grant.grantedNanos();
            }
        }
    }

    /** The next acquisition by another node under a higher term than {@code leader}'s, or null after 30 s. */
    private static NodeProcess.Acquired nextLeader(BlockingQueue<NodeProcess.Acquired> acquisitions,
            NodeProcess.Acquired leader) throws InterruptedException {
        long deadline = System.nanoTime() + LEADER_TIMEOUT_NANOS;
        while (true) {
            long left = deadline - System.nanoTime();
            NodeProcess.Acquired next = acquisitions.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            if (next == null || (next.node() != leader.node() && next.term() > leader.term())) {
                return next;
            }
        }
    }

    /** The live lease, waiting (30 s at most) until there is one. */
    private static Lease awaitLease(CoordinationStore observer) throws InterruptedException {
        long deadline = System.nanoTime() + LEADER_TIMEOUT_NANOS;
        while (System.nanoTime() - deadline < 0) {
            Optional<Lease> lease = readLease(observer);
            if (lease.isPresent()) {
                return lease.get();
            }
            Thread.sleep(POLL_MILLIS * 10);
        }
        throw new IllegalStateException("no leader within 30 s");
    }

    /** The lease as the store reads now; empty while there is none or the store does not answer. */
    private static Optional<Lease> readLease(CoordinationStore observer) throws InterruptedException {
        try {
            return observer.leases().read(FailoverScenario.GROUP).get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    private static int slotOf(NodeProcess[] nodes, String nodeId) throws Exception {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i].nodeId(START_TIMEOUT_SECONDS).equals(nodeId)) {
                return i;
            }
        }
        throw new IllegalStateException("the lease is held by " + nodeId + ", which is none of the running nodes");
    }

    /** Lets a restarted node's JVM finish its start-up, then lands the next sample at a random point. */
    private static void settle(Random random) throws InterruptedException {
        Thread.sleep(SETTLE_MILLIS + random.nextInt(1000));
    }

    private static String ms(long nanos) {
        return MarkdownTable.millis(nanos);
    }
}

package dev.baton.bench.failover;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.backend.BackendKind;
import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.PhaseBreakdown;
import dev.baton.bench.stats.Samples;
import dev.baton.bench.support.Environment;
import dev.baton.core.ElectionConfig;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.Lease;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Scenario 2, crash failover: three {@link BenchNode} JVMs run one election ({@link ElectionConfig#fast()}); the
 * leader's process is killed with SIGKILL and the next {@code acquired} line is awaited. The result is
 * {@code t_acquired - t_kill - remaining}, where {@code remaining} is the lease time still left at the kill (read
 * from the store just before it): what failover costs beyond the lease that, by design, must run out first.
 * The killed node is restarted so that three nodes run at every kill. The nodes run on the backend of
 * {@code --backend}: each child JVM is given the store URI of the scenario's private server.
 */
public final class FailoverScenario implements Scenario {

    private static final int NODES = 3;
    static final String GROUP = "bench-failover";
    private static final long START_TIMEOUT_SECONDS = 60;
    private static final long FAILOVER_TIMEOUT_MILLIS = 15_000;
    private static final long SETTLE_MILLIS = 3_000;
    /** A renewal that slipped in between the read and the kill shows up as a lease this much longer than read. */
    private static final long RENEWAL_SLACK_NANOS = Duration.ofMillis(20).toNanos();

    /** One kill: when, how much lease was left, and whether a renewal crossed it. */
    record Kill(long atNanos, long remainingNanos, boolean renewalCrossed) {
        long expiresAt() {
            return atNanos + remainingNanos;
        }
    }

    @Override
    public String name() {
        return "failover";
    }

    @Override
    public String description() {
        return "SIGKILL of the leader process -> next acquired, minus the lease left at the kill (fast profile)";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        for (BackendKind kind : options.backends()) {
            run(kind, options, out);
        }
    }

    private void run(BackendKind kind, BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(30);
        int warmup = options.warmup(2);
        Random random = new Random(options.seed());
        out.println("## Crash failover (SIGKILL of the leader process)" + kind.headingSuffix());
        out.println();
        BlockingQueue<NodeProcess.Acquired> acquisitions = new LinkedBlockingQueue<>();
        NodeProcess[] nodes = new NodeProcess[NODES];
        // The observer connects first: on PostgreSQL it creates the schema before three nodes would race to.
        try (BenchBackend backend = BenchBackend.start(kind); CoordinationStore observer = backend.connect()) {
            out.println(Environment.machine() + ". " + backend.describe());
            out.println("3 node JVMs (`BenchNode`, ElectionConfig.fast(): TTL 3 s, renew every 1 s, check every"
                    + " 500 ms, expiry jitter 0-5 ms); " + n + " kills after " + warmup + " warm-up kills, each"
                    + " after a " + SETTLE_MILLIS / 1000 + " s settle (a restarted node's JVM start-up takes both"
                    + " cores) plus a random 0-1 s, so kills land anywhere in the 1 s renewal cycle. Times"
                    + " from different processes are compared on System.nanoTime(), which is CLOCK_MONOTONIC on"
                    + " Linux: one clock for the whole machine.");
            out.println();
            try {
                for (int i = 0; i < NODES; i++) {
                    nodes[i] = NodeProcess.start("node-" + i, backend.uri(), GROUP, acquisitions);
                }
                for (NodeProcess node : nodes) {
                    node.awaitReady(START_TIMEOUT_SECONDS);
                }
                measure(nodes, acquisitions, observer, backend, random, warmup, n, out);
            } finally {
                for (NodeProcess node : nodes) {
                    if (node != null) {
                        node.stop();
                    }
                }
            }
        }
        out.flush();
    }

    private void measure(NodeProcess[] nodes, BlockingQueue<NodeProcess.Acquired> acquisitions,
            CoordinationStore observer, BenchBackend backend, Random random, int warmup, int n, PrintStream out)
            throws Exception {
        NodeProcess.Acquired leader = acquisitions.poll(FAILOVER_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        if (leader == null) {
            throw new IllegalStateException("no node became leader");
        }
        Samples beyond = new Samples(warmup, n);
        Samples raw = new Samples(warmup, n);
        Samples remaining = new Samples(warmup, n);
        Map<String, String> explained = new LinkedHashMap<>();
        explained.put("lease expiry -> acquire sent", "a follower wakes at the expiry it read plus 0-5 ms jitter"
                + " (an early attempt is denied and retried at the new remaining time)");
        explained.put("acquire round trip", backend.path().acquireRoundTrip());
        explained.put("granted -> listener", "hop to the election's queue, then to its event queue, where the"
                + " listener runs");
        PhaseBreakdown phases = new PhaseBreakdown(warmup, n, explained);
        int renewalsCrossed = 0;
        for (int k = 1; k <= warmup + n; k++) {
            // Let a restarted node's JVM finish its start-up compilation (it takes both cores for a while), then
            // land the kill at a random point of the leader's 1 s renewal cycle.
            Thread.sleep(SETTLE_MILLIS + random.nextInt(1000));
            int slot = indexOf(nodes, leader.node());
            Kill kill = kill(leader, observer);
            NodeProcess.Acquired next = acquisitions.poll(FAILOVER_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            if (next == null || next.node() == leader.node() || next.term() <= leader.term()) {
                throw new IllegalStateException("no valid new leader after killing " + leader.node().name()
                        + ": " + next);
            }
            renewalsCrossed += kill.renewalCrossed() ? 1 : 0;
            beyond.add(next.atNanos() - kill.expiresAt());
            raw.add(next.atNanos() - kill.atNanos());
            remaining.add(kill.remainingNanos());
            phases.record(kill.expiresAt(), next.acquireSent(), next.acquireGranted(), next.atNanos());
            System.err.printf("failover %d: lease left %.1f ms, beyond it %.2f ms%n", k,
                    kill.remainingNanos() / 1e6, (next.atNanos() - kill.expiresAt()) / 1e6);
            leader.node().awaitExit(10);
            nodes[slot] = NodeProcess.start("node-" + slot + "-" + k, backend.uri(), GROUP, acquisitions);
            nodes[slot].awaitReady(START_TIMEOUT_SECONDS);
            leader = next;
        }
        LatencyReport report = new LatencyReport()
                .add("failover beyond the lease", beyond.summary(), "t_acquired - t_kill - remaining (the goal)")
                .add("kill -> acquired (raw)", raw.summary(), "includes the remaining lease")
                .add("lease remaining at kill", remaining.summary(), "read from " + backend.kind().label()
                        + " just before the kill");
        out.println(report.table());
        out.println("Where the time beyond the lease goes (lease expiry = t_kill + remaining):");
        out.println();
        out.println(phases.table());
        out.println("Renewals that crossed the kill (lease re-read after it and corrected): " + renewalsCrossed + ".");
        out.println();
    }

    /**
     * Reads the lease the leader holds, SIGKILLs the leader, and works out how much lease was left at the kill. A
     * renewal already on its way when the process died can still land after the read; the lease is read again after
     * the kill, and if it is longer than the first read allows, the longer value is what followers must wait out.
     */
    static Kill kill(NodeProcess.Acquired leader, CoordinationStore observer) throws Exception {
        String leaderId = leader.node().nodeId(START_TIMEOUT_SECONDS);
        Lease lease = observer.leases().read(GROUP).get(2, TimeUnit.SECONDS)
                .orElseThrow(() -> new IllegalStateException("no lease while a leader runs"));
        long readAt = System.nanoTime();
        if (!lease.owner().equals(leaderId)) {
            throw new IllegalStateException("lease held by " + lease.owner() + ", expected " + leaderId);
        }
        long killAt = System.nanoTime();
        leader.node().kill();
        long remaining = lease.remaining().toNanos() - (killAt - readAt);
        Optional<Lease> after = observer.leases().read(GROUP).get(2, TimeUnit.SECONDS);
        long afterAt = System.nanoTime();
        if (after.isPresent() && after.get().owner().equals(leaderId) && after.get().term() == lease.term()) {
            long implied = after.get().remaining().toNanos() + (afterAt - killAt);
            if (implied > remaining + RENEWAL_SLACK_NANOS) {
                return new Kill(killAt, implied, true);
            }
        }
        return new Kill(killAt, remaining, false);
    }

    private static int indexOf(NodeProcess[] nodes, NodeProcess node) {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] == node) {
                return i;
            }
        }
        throw new IllegalStateException(node.name() + " is not running");
    }
}

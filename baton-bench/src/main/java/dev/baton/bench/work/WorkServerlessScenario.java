package dev.baton.bench.work;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.Samples;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.work.ActualSubscription;
import dev.baton.work.WorkClusterState;
import dev.baton.worker.sim.SimulatedWorker;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The serverless work cluster: three quorum nodes (fast profile) keep the work cluster's maps replicated among
 * themselves, no Redis or PostgreSQL. Measures the subscribe latency (the {@code subscribe} call on a follower, and on
 * the leader, to the command's arrival at the worker: the request crosses the nodes' bus, the leader's write waits
 * for a majority of the replicas, then the worker is told) and the failover of the work cluster: the leader crashes
 * (its transports close at once, like SIGKILL), and the clock runs until another node leads, then until it has
 * reconciled: every worker connected to it, online, and every item recorded active where it ran.
 */
public final class WorkServerlessScenario implements Scenario {

    private static final String GROUP = "bench-serverless";
    private static final int NODES = 3;
    private static final int WORKERS = 4;
    /** Items running during the failovers. */
    private static final int ITEMS = 40;

    private final CommandArrivals arrivals = new CommandArrivals();
    private final AtomicLong lastAcquired = new AtomicLong();
    private int next;
    private int moved;

    @Override
    public String name() {
        return "work-serverless";
    }

    @Override
    public String description() {
        return "serverless work cluster (3 quorum nodes, replicated maps): subscribe -> worker, and leader crash ->"
                + " new leader reconciled";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(200);
        int warmup = options.warmup(30);
        int failovers = Integer.getInteger("baton.bench.work.failovers", 5);
        List<SimulatedWorker> workers = new ArrayList<>();
        List<ServerlessWorkNode> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < WORKERS; i++) {
                workers.add(SimulatedWorker.builder().listener(arrivals.listener()).start());
            }
            List<String> urls = workers.stream().map(w -> w.uri().toString()).toList();
            List<PeerAddress> peers = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                peers.add(PeerAddress.of("127.0.0.1", ServerlessWorkNode.freePort()));
            }
            for (PeerAddress peer : peers) {
                nodes.add(ServerlessWorkNode.start(GROUP, peer, peers, urls, lastAcquired::set));
            }
            WorkHarness.await("one leader with every worker online", () -> leaderOf(nodes) != null
                    && leaderOf(nodes).cluster().getState().join().workers().stream().allMatch(w -> w.online()));

            out.println("## Serverless work cluster: subscribe latency and failover");
            out.println();
            out.println(NODES + " quorum nodes (fast profile: heartbeat 100 ms, timeout 500 ms) in one JVM, each with"
                    + " its own peer and replica TCP transports on loopback, election, replicated maps and work cluster"
                    + " (`WorkClusterConfig.fast()`); " + WORKERS + " simulated workers, no results flowing. Subscribe:"
                    + " one call at a time, " + warmup + " warm-up calls, then " + n + " measured, per row. Failover: "
                    + failovers + " crashes of the leader with " + ITEMS + " items running; the crashed node is"
                    + " started again on its address before the next one.");
            out.println();
            LatencyReport report = new LatencyReport();
            ServerlessWorkNode leader = leaderOf(nodes);
            ServerlessWorkNode follower = nodes.stream().filter(node -> node != leader).findFirst().orElseThrow();
            measureSubscribe(report, "subscribe on a follower: worker has it", "subscribe on a follower: stored",
                    warmup, n, follower);
            measureSubscribe(report, "subscribe on the leader: worker has it", "subscribe on the leader: stored",
                    warmup, n, leader);
            for (int i = 0; i < next; i++) {
                leaderOf(nodes).cluster().unsubscribe("display-" + i + ";camera-" + i).get(30, TimeUnit.SECONDS);
            }
            for (int i = 0; i < ITEMS; i++) {
                leaderOf(nodes).cluster().subscribe(WorkHarness.item("failover-" + i + ";camera-" + i))
                        .get(30, TimeUnit.SECONDS);
            }
            measureFailovers(report, failovers, nodes, peers, urls, workers);
            out.println(report.table());
        } finally {
            for (ServerlessWorkNode node : nodes) {
                node.close();
            }
            workers.forEach(SimulatedWorker::close);
        }
    }

    private void measureSubscribe(LatencyReport report, String arrivedRow, String storedRow, int warmup, int n,
            ServerlessWorkNode on) throws Exception {
        Samples arrived = new Samples(warmup, n);
        Samples stored = new Samples(warmup, n);
        for (int i = 0; i < warmup + n; i++) {
            String id = "display-" + next + ";camera-" + next;
            next++;
            var arrival = arrivals.expect("subscribe", id);
            long start = System.nanoTime();
            on.cluster().subscribe(WorkHarness.item(id)).get(30, TimeUnit.SECONDS);
            long storedAt = System.nanoTime();
            long arrivedAt = arrival.get(30, TimeUnit.SECONDS);
            arrived.add(arrivedAt - start);
            stored.add(storedAt - start);
        }
        report.add(arrivedRow, arrived.summary(), null);
        report.add(storedRow, stored.summary(), null);
    }

    private void measureFailovers(LatencyReport report, int failovers, List<ServerlessWorkNode> nodes,
            List<PeerAddress> peers, List<String> urls, List<SimulatedWorker> workers) throws Exception {
        Samples elected = new Samples(0, failovers);
        Samples reconciled = new Samples(0, failovers);
        WorkHarness.await("every item running", () -> reconciledBy(leaderOf(nodes), workers));
        for (int f = 0; f < failovers; f++) {
            ServerlessWorkNode victim = leaderOf(nodes);
            Map<String, String> before = placements(workers);
            long crashedAt = System.nanoTime();
            victim.crash();
            nodes.remove(victim);
            WorkHarness.await("a new leader", () -> leaderOf(nodes) != null);
            elected.add(lastAcquired.get() - crashedAt);
            try {
                WorkHarness.await("the new leader reconciled", () -> reconciledBy(leaderOf(nodes), workers));
            } catch (IllegalStateException e) {
                ServerlessWorkNode now = leaderOf(nodes);
                throw new IllegalStateException(e.getMessage() + "; leader " + (now == null ? "none"
                        : now.peer() + ": " + now.cluster().getState().join().toJson()), e);
            }
            reconciled.add(System.nanoTime() - crashedAt);
            Map<String, String> after = placements(workers);
            before.forEach((item, worker) -> moved += worker.equals(after.get(item)) ? 0 : 1);
            ServerlessWorkNode restarted = ServerlessWorkNode.start(GROUP, victim.peer(), peers, urls,
                    lastAcquired::set);
            nodes.add(restarted);
            // Back in the group, and its replica caught up, before the next crash.
            WorkHarness.await("the crashed node back in the group", () -> leaderOf(nodes) != null
                    && leaderOf(nodes).election().membership().members().join().size() == NODES
                    && restarted.election().leader().isPresent()
                    && restarted.cluster().getState().join().items().size() == ITEMS);
        }
        report.add("leader crash: another node leads", elected.summary(), null);
        report.add("leader crash: new leader reconciled (workers connected, items active)", reconciled.summary(),
                moved + " of " + failovers * ITEMS + " item placements moved");
    }

    /** The node whose work cluster leads now, if exactly one does. */
    private static ServerlessWorkNode leaderOf(List<ServerlessWorkNode> nodes) {
        List<ServerlessWorkNode> leading = nodes.stream().filter(node -> node.cluster().isLeading()).toList();
        return leading.size() == 1 ? leading.get(0) : null;
    }

    /** {@code leader} holds every worker, online, and has recorded every running item active where it runs. */
    private static boolean reconciledBy(ServerlessWorkNode leader, List<SimulatedWorker> workers) {
        if (leader == null || !leader.cluster().isLeading()) {
            return false;
        }
        WorkClusterState state = leader.cluster().getState().join();
        boolean connected = state.workers().stream().allMatch(w -> w.online()
                && leader.election().nodeId().equals(w.processId()))
                && workers.stream().allMatch(w -> w.connections() == 1);
        Map<String, String> running = placements(workers);
        long active = state.items().stream().filter(item -> item.status() == ActualSubscription.Status.ACTIVE
                && item.assignedWorkerUrl().equals(running.get(item.subscriptionIdentifier()))).count();
        return connected && running.size() == ITEMS && active == ITEMS;
    }

    private static Map<String, String> placements(List<SimulatedWorker> workers) {
        Map<String, String> placed = new HashMap<>();
        for (SimulatedWorker w : workers) {
            w.subscriptions().forEach(item -> placed.put(item, w.uri().toString()));
        }
        return placed;
    }
}

package dev.baton.bench.work;

import dev.baton.bench.backend.BackendKind;
import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.backend.RedisBackend;
import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.time.ExecutorScheduler;
import dev.baton.worker.sim.SimulatedWorker;
import dev.baton.work.WorkCluster;
import dev.baton.work.WorkClusterConfig;
import dev.baton.work.WorkItem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * What the work cluster benchmarks run on: a private Redis, simulated workers on loopback WebSockets, and two
 * processes' worth of work cluster in this JVM, each with its own Redis connections, election and threads: the
 * {@link #leader()}, which holds the worker connections, and a {@link #follower()}, which does not lead and is where
 * the benchmarks subscribe from and listen on (seed 001's slave process).
 */
final class WorkHarness implements AutoCloseable {

    private static final String GROUP = "bench-work";
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private final BenchBackend redis;
    private final List<SimulatedWorker> workers = new ArrayList<>();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private final Map<WorkCluster, Election> elections = new HashMap<>();
    private WorkCluster leader;
    private WorkCluster follower;

    private WorkHarness(BenchBackend redis) {
        this.redis = redis;
    }

    /**
     * Starts Redis, {@code workerCount} workers sending {@code detectionsPerSecond} results per subscription, the
     * leader (waits until it leads) and the follower; {@code beforeStart} configures the follower's listeners.
     */
    static WorkHarness start(int workerCount, double detectionsPerSecond, SimulatedWorker.Listener workerListener,
            java.util.function.Consumer<WorkCluster> beforeStart) throws Exception {
        WorkHarness h = new WorkHarness(BenchBackend.start(BackendKind.REDIS));
        try {
            for (int i = 0; i < workerCount; i++) {
                h.workers.add(SimulatedWorker.builder().detectionsPerSecond(detectionsPerSecond)
                        .listener(workerListener).start());
            }
            h.leader = h.process("leader");
            h.begin(h.leader);
            await("the leader to lead", h.leader::isLeading);
            h.follower = h.process("follower");
            beforeStart.accept(h.follower);
            h.begin(h.follower);
            await("every worker online", () -> h.leader.getState().join().workers().stream()
                    .allMatch(w -> w.online()));
            return h;
        } catch (Exception | Error e) {
            h.close();
            throw e;
        }
    }

    /**
     * One process. The election runs on the seed's timings (lease 30 s): a starved benchmark machine must not make the
     * leader lose its lease mid-measurement (the fast profile's 500 ms store timeout can).
     */
    private WorkCluster process(String id) {
        CoordinationStore store = redis.connect();
        closing.add(0, store);
        Election election = Baton.election(store).group(GROUP).node(NodeInfo.of(id, "bench-" + id))
                .config(ElectionConfig.defaults()).build();
        closing.add(0, election);
        // Named threads, so that CpuAccount can tell the leader's work from the follower's.
        ExecutorScheduler scheduler = new ExecutorScheduler("work-" + id);
        ExecutorScheduler listeners = new ExecutorScheduler("listeners-" + id);
        closing.add(0, () -> listeners.close(Duration.ofSeconds(1)));
        closing.add(0, () -> scheduler.close(Duration.ofSeconds(1)));
        WorkCluster cluster = WorkCluster.builder(election, store)
                .workers(workers.stream().map(w -> w.uri().toString()).toList())
                .config(config()).scheduler(scheduler).listenerExecutor(listeners::execute)
                .build();
        closing.add(0, cluster);
        elections.put(cluster, election);
        return cluster;
    }

    /**
     * The defaults, but with a worker message budget above what a simulated worker sends at the highest step (50,000
     * results/s over 8 workers is 6,250 messages/s each; the default budget, 1,000/s, is for workers that send a
     * result per processed frame). {@code -Dbaton.bench.work.batch=N} sets {@code maxResultsPerMessage} (1: every
     * result in a message of its own, as before batches).
     */
    static WorkClusterConfig config() {
        WorkClusterConfig defaults = WorkClusterConfig.defaults();
        return defaults.toBuilder()
                .connection(defaults.connection().toBuilder().messagesPerSecond(20_000).messageBurst(20_000).build())
                .maxResultsPerMessage(Integer.getInteger("baton.bench.work.batch", defaults.maxResultsPerMessage()))
                .build();
    }

    /** Starts the cluster (after its listeners were added), then its election. */
    private void begin(WorkCluster cluster) {
        cluster.start();
        elections.get(cluster).start();
    }

    WorkCluster leader() {
        return leader;
    }

    WorkCluster follower() {
        return follower;
    }

    List<SimulatedWorker> workers() {
        return workers;
    }

    /** The process id of the private {@code redis-server}. */
    long redisPid() {
        return ((RedisBackend) redis).server().pid();
    }

    /** Private Redis, for the tables' context line. */
    String describeRedis() {
        return redis.describe();
    }

    /** Results the workers have sent so far. */
    long detectionsSent() {
        return workers.stream().mapToLong(SimulatedWorker::detectionsSent).sum();
    }

    /** Which worker (its index) runs each item now. */
    Map<String, Integer> workerOfSubscription() {
        Map<String, Integer> owners = new java.util.HashMap<>();
        for (int i = 0; i < workers.size(); i++) {
            for (String item : workers.get(i).subscriptions()) {
                owners.put(item, i);
            }
        }
        return owners;
    }

    /** Subscriptions the workers hold now. */
    int running() {
        return workers.stream().mapToInt(w -> w.subscriptions().size()).sum();
    }

    /** A valid item: {@code display-N;camera-N} with a model URL, as the benchmark's subscriptions. */
    static WorkItem item(String id) {
        return WorkItem.builder(id).rtspUrl("rtsp://cameras.bench/" + id.replace(';', '-')).model(42, "plates")
                .modelUrl("https://models.bench/plates.onnx").build();
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    @Override
    public void close() {
        for (AutoCloseable c : closing) {
            try {
                c.close();
            } catch (Exception e) {
                // best effort: the next one still closes
            }
        }
        workers.forEach(SimulatedWorker::close);
        try {
            redis.close();
        } catch (Exception e) {
            // best effort
        }
    }
}

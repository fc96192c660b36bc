package dev.baton.work.cluster;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import dev.baton.testkit.FaultInjectingStore;
import dev.baton.work.WorkCluster;
import dev.baton.work.WorkClusterConfig;
import dev.baton.work.WorkClusterEvent;
import dev.baton.work.WorkItem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Processes running work clusters on one in-memory store, workers in memory ({@link FakeWorkers}), everything on one
 * deterministic scheduler and fake clock: a test arranges, lets time pass, and asserts, with no thread and no sleep.
 */
final class SimCluster implements AutoCloseable {

    static final String GROUP = "cameras";

    final FakeClock clock = new FakeClock();
    final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    final InMemoryStore store = new InMemoryStore(clock);
    final FakeWorkers workers = new FakeWorkers(scheduler);
    final List<String> workerUrls = new ArrayList<>();
    final List<Node> nodes = new ArrayList<>();
    WorkClusterConfig config = WorkClusterConfig.fast();
    private int seed = 1;

    /** One process: its election, its work cluster and what it saw. */
    static final class Node {
        final String id;
        final Election election;
        final WorkCluster cluster;
        final FaultInjectingStore faults;
        final List<WorkClusterEvent> events = new ArrayList<>();

        Node(String id, Election election, WorkCluster cluster, FaultInjectingStore faults) {
            this.id = id;
            this.election = election;
            this.cluster = cluster;
            this.faults = faults;
        }
    }

    SimCluster withWorkers(int count) {
        for (int i = 1; i <= count; i++) {
            String url = "ws://worker-" + i + ":8000";
            workerUrls.add(url);
            workers.add(url);
        }
        return this;
    }

    /** Starts a process with the default settings. */
    Node start(String id) {
        return start(id, b -> { });
    }

    /** Starts a process; {@code customize} may change its builder. */
    Node start(String id, Consumer<WorkCluster.Builder> customize) {
        FaultInjectingStore faults = new FaultInjectingStore(store);
        Election election = Baton.election(faults).group(GROUP).node(NodeInfo.of(id, "work"))
                .config(ElectionConfig.fast()).clock(clock).scheduler(scheduler).eventExecutor(Runnable::run)
                .random(new Random(seed++)).recordEvents(false).build();
        WorkCluster.Builder builder = WorkCluster.builder(election, faults).workers(workerUrls).config(config)
                .clock(clock).scheduler(scheduler).random(new Random(seed++)).transport(workers)
                .sourceExecutor(Runnable::run).listenerExecutor(Runnable::run);
        customize.accept(builder);
        WorkCluster cluster = builder.build();
        Node node = new Node(id, election, cluster, faults);
        cluster.addListener(node.events::add);
        cluster.start();
        election.start();
        nodes.add(node);
        return node;
    }

    /** Lets {@code duration} pass, running everything due. */
    void run(Duration duration) {
        scheduler.advance(duration);
    }

    /** Runs everything due now. */
    void settle() {
        scheduler.runUntilIdle();
    }

    /** The value of a future that must be done once the tasks due now have run. */
    <T> T await(CompletableFuture<T> future) {
        for (int i = 0; i < 100 && !future.isDone(); i++) {
            scheduler.advance(Duration.ofMillis(100));
        }
        return future.join();
    }

    Node leader() {
        return nodes.stream().filter(n -> n.cluster.isLeading()).findFirst()
                .orElseThrow(() -> new AssertionError("no process leads the work cluster"));
    }

    Node follower() {
        return nodes.stream().filter(n -> !n.cluster.isLeading() && n.cluster.state() == WorkCluster.State.STARTED)
                .findFirst().orElseThrow(() -> new AssertionError("no follower"));
    }

    static WorkItem item(String id) {
        return WorkItem.builder(id).rtspUrl("rtsp://cameras/" + id.replace(';', '-')).model(42, "plates")
                .modelUrl("https://models.example/plates.onnx").build();
    }

    /** Item id -> the workers running it. */
    Map<String, List<String>> placements() {
        return workers.placements();
    }

    @Override
    public void close() {
        for (Node node : nodes) {
            node.cluster.close();
            node.election.closeAsync();
        }
        scheduler.advance(Duration.ofSeconds(5));
    }
}

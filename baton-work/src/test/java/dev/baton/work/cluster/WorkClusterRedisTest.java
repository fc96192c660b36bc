package dev.baton.work.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.redis.RedisStore;
import dev.baton.testkit.RedisServer;
import dev.baton.worker.sim.SimulatedWorker;
import dev.baton.work.ActualSubscription;
import dev.baton.work.WorkCluster;
import dev.baton.work.WorkClusterConfig;
import dev.baton.work.WorkClusterState;
import dev.baton.work.WorkItem;
import dev.baton.work.worker.WorkerMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The work cluster on a private Redis with three processes (each with its own connection) and four simulated workers
 * on real WebSockets: items spread evenly, a killed worker's items move, the leader's successor takes over without
 * losing an item or subscribing one twice, and results reach the right listeners throughout.
 */
class WorkClusterRedisTest {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private RedisServer redis;
    private final List<SimulatedWorker> workers = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();

    /** One process: its store connection, election and work cluster, and the results its listeners got. */
    private static final class Process {
        final String id;
        final RedisStore store;
        final Election election;
        final WorkCluster cluster;
        final List<WorkerMessage.ImageDetection> global = new CopyOnWriteArrayList<>();
        final List<WorkerMessage.ImageDetection> perItem = new CopyOnWriteArrayList<>();

        Process(String id, RedisStore store, Election election, WorkCluster cluster) {
            this.id = id;
            this.store = store;
            this.election = election;
            this.cluster = cluster;
        }

        void stop() {
            cluster.close();
            election.close();
            store.close();
        }
    }

    @BeforeEach
    void start() {
        redis = RedisServer.start();
        for (int i = 0; i < 4; i++) {
            workers.add(SimulatedWorker.builder().reportInterval(Duration.ofSeconds(1)).detectionsPerSecond(4)
                    .start());
        }
    }

    @AfterEach
    void stop() {
        processes.forEach(Process::stop);
        workers.forEach(SimulatedWorker::close);
        redis.close();
    }

    private Process process(String id) {
        RedisStore store = RedisStore.connect(redis.uri());
        Election election = Baton.election(store).group("cameras").node(NodeInfo.of(id, "work"))
                .config(ElectionConfig.fast()).build();
        WorkCluster cluster = WorkCluster.builder(election, store)
                .workers(workers.stream().map(w -> w.uri().toString()).toList())
                // A generous takeover grace: a new leader usually settles at the workers' first reports, long
                // before it; the margin keeps a starved CI machine from moving items that did not need to move.
                .config(WorkClusterConfig.fast().toBuilder().takeoverGrace(Duration.ofSeconds(5)).build()).build();
        Process p = new Process(id, store, election, cluster);
        processes.add(p);
        return p;
    }

    private void begin(Process p) {
        p.cluster.start();
        p.election.start();
    }

    /** Item -> the simulated workers running it. */
    private Map<String, List<SimulatedWorker>> placements() {
        Map<String, List<SimulatedWorker>> placements = new HashMap<>();
        for (SimulatedWorker w : workers) {
            if (w.isRunning()) {
                w.subscriptions().forEach(item -> placements.computeIfAbsent(item, i -> new ArrayList<>()).add(w));
            }
        }
        return placements;
    }

    private Map<String, Integer> subscribesReceived() {
        Map<String, Integer> counts = new ConcurrentHashMap<>();
        for (SimulatedWorker w : workers) {
            for (String json : w.received()) {
                if (json.contains("\"type\":\"subscribe\"")) {
                    String id = json.replaceAll(".*\"subscriptionIdentifier\":\"([^\"]*)\".*", "$1");
                    counts.merge(id, 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    private static Set<String> keys(List<WorkerMessage.ImageDetection> results, String item) {
        Set<String> keys = new HashSet<>();
        for (WorkerMessage.ImageDetection r : results) {
            if (item == null || r.subscriptionIdentifier().equals(item)) {
                keys.add(r.subscriptionIdentifier() + "/" + r.detection().licensePlateText() + "/" + r.timestamp());
            }
        }
        return keys;
    }

    @Test
    void spreadKillAWorkerFailOverAndRouteResults() {
        Process p1 = process("p1");
        Process p2 = process("p2");
        Process p3 = process("p3");
        String watched = "display-0;cam-0";
        var routed = List.of(p1.cluster.addGlobalDetectionListener(p1.global::add).routed(),
                p3.cluster.addGlobalDetectionListener(p3.global::add).routed(),
                p2.cluster.addDetectionListener(watched, p2.perItem::add).routed());
        begin(p1);
        await().atMost(PATIENCE).until(p1.cluster::isLeading);
        begin(p2);
        begin(p3);
        routed.forEach(f -> f.orTimeout(20, java.util.concurrent.TimeUnit.SECONDS).join());

        // Items subscribed on a follower spread evenly: 3 per worker, each on exactly one.
        for (int i = 0; i < 12; i++) {
            WorkItem item = WorkItem.builder("display-" + i + ";cam-" + i).rtspUrl("rtsp://cameras/" + i)
                    .model(42, "plates").modelUrl("https://models.example/plates.onnx").build();
            assertThat(p2.cluster.subscribe(item).join()).isTrue();
        }
        await().atMost(PATIENCE).untilAsserted(() -> {
            Map<String, List<SimulatedWorker>> placements = placements();
            assertThat(placements).hasSize(12).allSatisfy((item, on) -> assertThat(on).hasSize(1));
            assertThat(workers).allSatisfy(w -> assertThat(w.subscriptions()).hasSize(3));
        });

        // Results: p2 gets its item's, each result reaches exactly one of p1's and p3's global listeners.
        await().atMost(PATIENCE).until(() -> p1.global.size() + p3.global.size() > 100 && p2.perItem.size() > 5);
        // Results keep arriving: compare snapshots, not a snapshot with the growing list.
        List<WorkerMessage.ImageDetection> onOne = List.copyOf(p1.global);
        List<WorkerMessage.ImageDetection> onThree = List.copyOf(p3.global);
        Set<String> one = keys(onOne, null);
        Set<String> three = keys(onThree, null);
        assertThat(one).as("no result twice on p1").hasSize(onOne.size()).doesNotContainAnyElementsOf(three);
        assertThat(three).as("no result twice on p3").hasSize(onThree.size());
        assertThat(p1.global).isNotEmpty();
        assertThat(p3.global).isNotEmpty();
        Set<String> watchedGlobally = keys(p1.global, watched);
        watchedGlobally.addAll(keys(p3.global, watched));
        Set<String> watchedOnP2 = keys(p2.perItem, watched);
        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(keys(p2.perItem, watched)).containsAll(watchedGlobally);
            Set<String> global = keys(p1.global, watched);
            global.addAll(keys(p3.global, watched));
            assertThat(global).containsAll(watchedOnP2);
        });
        assertThat(p2.perItem).allSatisfy(r -> assertThat(r.subscriptionIdentifier()).isEqualTo(watched));
        // Counted and delivered agree (read again if a result arrived between the two reads).
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(p2.cluster.counters().join().get("results"))
                .isEqualTo(p2.perItem.size()));

        // A killed worker's items move to the others: 4 each on the three left.
        SimulatedWorker victim = workers.get(1);
        victim.kill();
        await().atMost(PATIENCE).untilAsserted(() -> {
            Map<String, List<SimulatedWorker>> placements = placements();
            assertThat(placements).hasSize(12).allSatisfy((item, on) -> assertThat(on).hasSize(1));
            assertThat(workers).filteredOn(w -> w != victim)
                    .allSatisfy(w -> assertThat(w.subscriptions()).hasSize(4));
        });

        // The leader stops; a follower takes over the connections: nothing lost, nothing subscribed again.
        Map<String, Integer> subscribes = subscribesReceived();
        Map<String, List<SimulatedWorker>> before = placements();
        p1.stop();
        processes.remove(p1);
        await().atMost(PATIENCE).until(() -> p2.cluster.isLeading() || p3.cluster.isLeading());
        Process leader = p2.cluster.isLeading() ? p2 : p3;
        await().atMost(PATIENCE).untilAsserted(() -> {
            WorkClusterState state = leader.cluster.getState().join();
            assertThat(state.isMaster()).isTrue();
            assertThat(state.items()).hasSize(12)
                    .allSatisfy(i -> assertThat(i.status()).isEqualTo(ActualSubscription.Status.ACTIVE));
            assertThat(state.workers()).filteredOn(w -> w.url().equals(victim.uri().toString()))
                    .allSatisfy(w -> assertThat(w.online()).isFalse());
            assertThat(state.assignments().values()).containsOnly("p3");
        });
        assertThat(placements()).isEqualTo(before);
        assertThat(subscribesReceived()).isEqualTo(subscribes);

        // Results keep flowing from the new leader: p2's item listener, p3's global listener.
        int perItem = p2.perItem.size();
        int global = p3.global.size();
        await().atMost(PATIENCE).until(() -> p2.perItem.size() > perItem + 3 && p3.global.size() > global + 20);
    }
}

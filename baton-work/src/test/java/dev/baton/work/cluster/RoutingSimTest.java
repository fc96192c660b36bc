package dev.baton.work.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.work.ListenerRegistration;
import dev.baton.work.WorkClusterState;
import dev.baton.work.worker.WorkerMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Result routing on a fake clock: p2 listens to one item, p1 and p3 have global listeners, p4 listens to nothing.
 * Each result reaches the item's listener on p2 and the global listeners of exactly one of p1 and p3, and nothing
 * reaches a process that neither listens to the item nor is assigned its worker.
 */
class RoutingSimTest {

    private static final List<String> ITEMS = List.of("d1;camA", "d2;camB", "d3;camC", "d4;camD", "d5;camE",
            "d6;camF");

    private final SimCluster sim = new SimCluster().withWorkers(3);
    private final List<WorkerMessage.ImageDetection> itemResults = new ArrayList<>();
    private final List<WorkerMessage.ImageDetection> global1 = new ArrayList<>();
    private final List<WorkerMessage.ImageDetection> global3 = new ArrayList<>();
    private SimCluster.Node p1;
    private SimCluster.Node p2;
    private SimCluster.Node p3;
    private SimCluster.Node p4;
    private long detections;

    @BeforeEach
    void startFourProcesses() {
        p1 = sim.start("p1");
        sim.run(Duration.ofSeconds(2));
        p2 = sim.start("p2");
        p3 = sim.start("p3");
        p4 = sim.start("p4");
        sim.run(Duration.ofSeconds(2));
        List<CompletableFuture<Void>> routed = new ArrayList<>();
        routed.add(p2.cluster.addDetectionListener("d1;camA", itemResults::add).routed());
        routed.add(p1.cluster.addGlobalDetectionListener(global1::add).routed());
        routed.add(p3.cluster.addGlobalDetectionListener(global3::add).routed());
        for (String item : ITEMS) {
            sim.await(p4.cluster.subscribe(SimCluster.item(item)));
        }
        routed.forEach(sim::await);
        sim.run(Duration.ofSeconds(3));
    }

    @AfterEach
    void close() {
        sim.close();
    }

    /** Every worker emits one result per item it runs; returns the plates emitted. */
    private Set<String> emitRound() {
        Set<String> plates = new HashSet<>();
        for (FakeWorkers.Worker worker : sim.workers.all()) {
            for (String item : worker.items()) {
                long n = ++detections;
                worker.detect(item, n);
                plates.add("PLATE-" + n);
            }
        }
        sim.run(Duration.ofMillis(200));
        return plates;
    }

    private static Set<String> plates(List<WorkerMessage.ImageDetection> results) {
        Set<String> plates = new HashSet<>();
        results.forEach(r -> plates.add(r.detection().licensePlateText()));
        return plates;
    }

    @Test
    void eachResultReachesItsItemListenerAndExactlyOneGlobalListener() {
        Set<String> emitted = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            emitted.addAll(emitRound());
        }

        assertThat(itemResults).hasSize(5).allSatisfy(r -> assertThat(r.subscriptionIdentifier()).isEqualTo("d1;camA"));
        assertThat(global1.size() + global3.size()).isEqualTo(emitted.size());
        Set<String> globallySeen = plates(global1);
        globallySeen.addAll(plates(global3));
        assertThat(globallySeen).isEqualTo(emitted);
        assertThat(plates(global1)).doesNotContainAnyElementsOf(plates(global3));
        assertThat(global1).isNotEmpty();
        assertThat(global3).isNotEmpty();

        Map<String, Long> c4 = sim.await(p4.cluster.counters());
        Map<String, Long> c2 = sim.await(p2.cluster.counters());
        assertThat(c4.get("results")).as("p4 listens to nothing and owns no worker").isZero();
        assertThat(c2.get("results")).as("p2 only listens to d1;camA").isEqualTo(5);
        WorkClusterState state = sim.await(p4.cluster.getState());
        assertThat(Set.copyOf(state.assignments().values())).containsExactlyInAnyOrder("p1", "p3");
        assertThat(p2.events).filteredOn(e -> e.name().equals("worker:detection_result")).hasSize(5);
    }

    @Test
    void routingSurvivesTheLeaderStoppingAndAProcessLeaving() {
        emitRound();
        p1.cluster.close();
        p1.election.closeAsync();
        sim.run(Duration.ofSeconds(8)); // a new leader; p1 gone from the registry and its card dropped
        global3.clear();
        itemResults.clear();
        int before = global1.size();

        Set<String> emitted = emitRound();
        assertThat(global1).hasSize(before);
        assertThat(plates(global3)).isEqualTo(emitted);
        assertThat(itemResults).hasSize(1);
        WorkClusterState state = sim.await(p2.cluster.getState());
        assertThat(Set.copyOf(state.assignments().values())).containsExactly("p3");
    }

    @Test
    void aListenerRemovedOrAddedChangesWhereResultsGo() {
        ListenerRegistration late = p4.cluster.addDetectionListener("d2;camB", r -> { });
        sim.await(late.routed());
        emitRound();
        assertThat(sim.await(p4.cluster.counters()).get("results")).isEqualTo(1);
        late.close();
        sim.run(Duration.ofSeconds(1));
        emitRound();
        assertThat(sim.await(p4.cluster.counters()).get("results")).isEqualTo(1);
    }

    @Test
    void garbageOnTheChannelsIsCountedAndDroppedAndNothingBreaks() {
        SimCluster.Node leader = sim.leader();
        sim.store.bus().publish("worker:master:commands", "not json".getBytes(StandardCharsets.UTF_8));
        sim.store.bus().publish("worker:master:commands", "{\"type\":\"subscribe_camera\",\"group\":\"cameras\"}"
                .getBytes(StandardCharsets.UTF_8));
        sim.store.bus().publish("worker:slave:p2", "[1,2,3]".getBytes(StandardCharsets.UTF_8));
        sim.store.bus().publish("worker:slave:p2", "{\"type\":\"detection\",\"group\":\"cameras\",\"seq\":\"x\"}"
                .getBytes(StandardCharsets.UTF_8));
        sim.store.bus().publish("worker:slave:p2", "{\"type\":\"regenerate_subscriptions\",\"group\":\"cameras\"}"
                .getBytes(StandardCharsets.UTF_8));
        sim.store.bus().publish("worker:slave:p2", ("{\"type\":\"ack\",\"group\":\"other-group\",\"stream\":\"s\","
                + "\"upTo\":1,\"from\":\"x\"}").getBytes(StandardCharsets.UTF_8)); // another group's: ignored
        sim.settle();

        assertThat(sim.await(p2.cluster.counters()).get("badMessages")).isEqualTo(3);
        assertThat(sim.await(leader.cluster.counters()).get("badCommands")).isEqualTo(2);
        assertThat(leader.cluster.isLeading()).isTrue();
        sim.await(p2.cluster.subscribe(SimCluster.item("d7;camG")));
        sim.run(Duration.ofSeconds(2));
        assertThat(sim.placements()).containsKey("d7;camG");
        emitRound();
        assertThat(itemResults).hasSize(1);
    }
}

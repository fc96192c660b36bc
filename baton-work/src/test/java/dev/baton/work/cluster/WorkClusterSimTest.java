package dev.baton.work.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.work.ActualSubscription;
import dev.baton.work.WorkClusterState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The work cluster end to end on a fake clock: three processes, four workers in memory, one in-memory store. */
class WorkClusterSimTest {

    private final SimCluster sim = new SimCluster().withWorkers(4);

    @AfterEach
    void close() {
        sim.close();
    }

    @Test
    void itemsSubscribedOnAFollowerSpreadEvenlyOverTheWorkers() {
        SimCluster.Node follower = steadyState(20);

        Map<String, List<String>> placements = sim.placements();
        assertThat(sim.workers.all()).allSatisfy(w -> assertThat(w.items()).hasSize(5));
        WorkClusterState state = sim.await(follower.cluster.getState());
        assertThat(state.items()).hasSize(20)
                .allSatisfy(i -> assertThat(i.status()).isEqualTo(ActualSubscription.Status.ACTIVE));
        assertThat(state.itemWorkers()).isEqualTo(IntStream.range(0, 20).boxed().collect(
                java.util.stream.Collectors.toMap(i -> "display-" + i + ";cam-" + i,
                        i -> placements.get("display-" + i + ";cam-" + i).get(0))));
        assertThat(state.isMaster()).isFalse();
        assertThat(state.totalWorkers()).isEqualTo(4);
        assertThat(state.totalSlaves()).isEqualTo(3);
        assertThat(state.workers()).allSatisfy(w -> assertThat(w.online()).isTrue());
    }

    private SimCluster.Node steadyState(int items) {
        sim.start("p1");
        sim.run(Duration.ofSeconds(2));
        sim.start("p2");
        sim.start("p3");
        sim.run(Duration.ofSeconds(3));
        SimCluster.Node follower = sim.follower();
        for (int i = 0; i < items; i++) {
            assertThat(sim.await(follower.cluster.subscribe(SimCluster.item("display-" + i + ";cam-" + i)))).isTrue();
        }
        sim.run(Duration.ofSeconds(5));
        assertOnExactlyOneWorkerEach(items);
        return follower;
    }

    private void assertOnExactlyOneWorkerEach(int items) {
        Map<String, List<String>> placements = sim.placements();
        assertThat(placements.keySet()).hasSize(items);
        assertThat(placements).allSatisfy((item, on) -> assertThat(on).as(item).hasSize(1));
    }

    private List<String> eventNames(SimCluster.Node node) {
        return node.events.stream().map(e -> e.name()).toList();
    }

    @Test
    void aKilledWorkersItemsMoveToTheOtherWorkersAtTheNextRound() {
        steadyState(12);
        SimCluster.Node leader = sim.leader();
        FakeWorkers.Worker victim = sim.workers.get("ws://worker-2:8000");
        List<String> itsItems = List.copyOf(victim.items());
        assertThat(itsItems).hasSize(3);
        victim.kill();
        sim.run(Duration.ofMillis(500));

        assertOnExactlyOneWorkerEach(12);
        assertThat(victim.items()).isEmpty();
        assertThat(sim.workers.all()).filteredOn(w -> w != victim).allSatisfy(w -> assertThat(w.items()).hasSize(4));
        assertThat(eventNames(leader)).contains("worker:offline");
        assertThat(leader.events).filteredOn(e -> e instanceof dev.baton.work.WorkClusterEvent.ItemMoved)
                .hasSize(3);
    }

    @Test
    void aSilentWorkersItemsMoveAfterTheReportTimeout() {
        steadyState(8);
        FakeWorkers.Worker silent = sim.workers.get("ws://worker-3:8000");
        List<String> itsItems = List.copyOf(silent.items());
        silent.silent = true;
        sim.run(Duration.ofSeconds(2));
        assertThat(sim.placements().get(itsItems.get(0))).containsExactly(silent.url); // not yet: 3 s timeout
        sim.run(Duration.ofSeconds(2));
        for (String item : itsItems) {
            // Moved to a live worker; the silent one still runs it, as nobody can tell it to stop.
            assertThat(sim.placements().get(item)).hasSize(2).contains(silent.url);
        }
        silent.silent = false;
        silent.kill(); // it restarts empty
        silent.restart();
        sim.run(Duration.ofSeconds(5));
        assertOnExactlyOneWorkerEach(8);
    }

    @Test
    void aNewLeaderTakesOverWithoutLosingOrSubscribingAnythingAgain() {
        steadyState(20);
        Map<String, List<String>> before = sim.placements();
        Map<String, Integer> subscribes = subscribeCounts();
        SimCluster.Node old = sim.leader();
        old.election.closeAsync();
        sim.run(Duration.ofSeconds(10));

        SimCluster.Node leader = sim.leader();
        assertThat(leader).isNotSameAs(old);
        assertThat(sim.placements()).isEqualTo(before);
        assertThat(subscribeCounts()).isEqualTo(subscribes);
        WorkClusterState state = sim.await(leader.cluster.getState());
        assertThat(state.items()).hasSize(20)
                .allSatisfy(i -> assertThat(i.status()).isEqualTo(ActualSubscription.Status.ACTIVE));

        // The new leader holds what it adopted: a restarted worker gets its items back (or they move).
        FakeWorkers.Worker worker = sim.workers.get("ws://worker-1:8000");
        worker.kill();
        worker.restart();
        sim.run(Duration.ofSeconds(10));
        assertOnExactlyOneWorkerEach(20);
    }

    private Map<String, Integer> subscribeCounts() {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        for (FakeWorkers.Worker w : sim.workers.all()) {
            w.subscribesReceived.forEach((item, n) -> counts.merge(item, n, Integer::sum));
        }
        return counts;
    }

    @Test
    void aLeaderCutOffFromTheStoreStopsAndItsLateWritesAreRefused() {
        steadyState(12);
        SimCluster.Node old = sim.leader();
        old.faults.hang(); // its calls wait; on heal they all reach the store, late
        sim.run(Duration.ofSeconds(5)); // past the lease: it stops, another leads
        assertThat(old.cluster.isLeading()).isFalse();
        SimCluster.Node leader = sim.leader();
        assertThat(leader).isNotSameAs(old);
        assertThat(eventNames(old)).contains("worker:disconnected"); // it closed its worker connections

        // While the old leader is cut off, work goes on: a worker dies, a new item comes.
        sim.workers.get("ws://worker-4:8000").kill();
        sim.await(leader.cluster.subscribe(SimCluster.item("display-99;cam-99")));
        sim.run(Duration.ofSeconds(3));
        assertOnExactlyOneWorkerEach(13);
        Map<String, List<String>> placements = sim.placements();

        old.faults.heal(); // the old leader's delayed writes arrive now: the store refuses their old term
        sim.run(Duration.ofSeconds(10));
        assertThat(sim.placements()).isEqualTo(placements);
        WorkClusterState state = sim.await(leader.cluster.getState());
        assertThat(state.itemWorkers()).isEqualTo(placements.entrySet().stream().collect(
                java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> e.getValue().get(0))));
    }
}

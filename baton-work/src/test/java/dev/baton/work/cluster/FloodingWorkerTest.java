package dev.baton.work.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.work.WorkClusterEvent;
import dev.baton.work.worker.WorkerEvent;
import dev.baton.work.worker.WorkerMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A worker flooding the leader on a fake clock: it is disconnected as flooding, its items move, and a well-behaved
 * worker's results keep reaching the listeners meanwhile.
 */
class FloodingWorkerTest {

    private final SimCluster sim = new SimCluster().withWorkers(3);

    @AfterEach
    void close() {
        sim.close();
    }

    @Test
    void aFloodingWorkerIsDisconnectedItsItemsMoveAndAWellBehavedWorkersResultsKeepArriving() {
        List<WorkerMessage.ImageDetection> results = new ArrayList<>();
        SimCluster.Node p1 = sim.start("p1");
        sim.run(Duration.ofSeconds(2));
        SimCluster.Node p2 = sim.start("p2");
        sim.run(Duration.ofSeconds(3));
        p1.cluster.addGlobalDetectionListener(results::add);
        p2.cluster.addGlobalDetectionListener(results::add);
        for (int i = 0; i < 6; i++) {
            assertThat(sim.await(p2.cluster.subscribe(SimCluster.item("display-" + i + ";cam-" + i)))).isTrue();
        }
        sim.run(Duration.ofSeconds(5));
        SimCluster.Node leader = sim.leader();
        FakeWorkers.Worker flooder = sim.workers.get("ws://worker-1:8000");
        FakeWorkers.Worker good = sim.workers.get("ws://worker-2:8000");
        List<String> flooderItems = List.copyOf(flooder.items());
        String goodItem = good.items().iterator().next();
        assertThat(flooderItems).hasSize(2);

        flooder.flood(20_000); // four times the default burst of 5,000, at one instant
        for (int n = 0; n < 10; n++) {
            good.detect(goodItem, n);
        }
        sim.run(Duration.ofMillis(500));

        assertThat(leader.events).filteredOn(e -> e instanceof WorkClusterEvent.WorkerNotice notice
                        && notice.event() instanceof WorkerEvent.WebSocketError error
                        && error.url().equals(flooder.url) && error.error().startsWith("flooding: "))
                .hasSize(1);
        // Every tenth message was malformed: the bad-message budget (100 at once) runs out first.
        assertThat(leader.events).filteredOn(e -> e instanceof WorkClusterEvent.WorkerNotice notice
                        && notice.event() instanceof WorkerEvent.Offline offline && offline.url().equals(flooder.url))
                .singleElement().satisfies(e -> assertThat(((WorkerEvent.Offline) ((WorkClusterEvent.WorkerNotice) e)
                        .event()).reason()).isEqualTo(
                                "flooding: more than 1 bad messages a second (burst 100); disconnected"));
        assertThat(leader.events).filteredOn(e -> e instanceof WorkClusterEvent.ItemMoved m
                && m.fromWorkerUrl().equals(flooder.url)).hasSize(2);
        for (String item : flooderItems) {
            assertThat(sim.placements().get(item)).anySatisfy(w -> assertThat(w).isNotEqualTo(flooder.url));
        }
        assertThat(results).filteredOn(r -> r.subscriptionIdentifier().equals(goodItem)).hasSize(10);
        // Not every flood result got through: the leader stopped reading at the budget.
        assertThat(results).filteredOn(r -> flooderItems.contains(r.subscriptionIdentifier()))
                .hasSizeLessThanOrEqualTo(1_000);

        // It comes back under the normal reconnect policy (1 s + jitter in the fast profile) and behaves.
        sim.run(Duration.ofSeconds(5));
        assertThat(sim.leader().cluster.getState()).isNotNull();
        assertThat(sim.placements()).allSatisfy((item, on) -> assertThat(on).as(item).hasSize(1));
    }
}

package dev.baton.work.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.worker.sim.SimulatedWorker;
import dev.baton.work.WorkCluster;
import dev.baton.work.WorkClusterConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * With real threads: the work cluster stops leading inside the election's {@code LeadershipLost} delivery, so a
 * listener that runs after it (and the next leader, which a graceful release waits for) never sees it still leading.
 */
class LeadershipHandoverTest {

    @Test
    void theClusterHasStoppedLeadingBeforeLeadershipLostDeliveryMovesOn() {
        InMemoryStore store = new InMemoryStore();
        try (SimulatedWorker worker = SimulatedWorker.builder().detectionsPerSecond(0).start();
             Election election = Baton.election(store).group("cameras").config(ElectionConfig.fast())
                     .recordEvents(false).build()) {
            WorkCluster cluster = WorkCluster.builder(election, store).worker(worker.uri().toString())
                    .config(WorkClusterConfig.fast()).build();
            List<Boolean> leadingWhenLost = new CopyOnWriteArrayList<>();
            cluster.start();
            election.addListener(event -> {
                if (event instanceof ElectionEvent.LeadershipLost) {
                    leadingWhenLost.add(cluster.isLeading());
                }
            });
            election.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.isLeading() && worker.connections() == 1);

            election.stepDown().join();
            await().atMost(Duration.ofSeconds(10)).until(() -> !leadingWhenLost.isEmpty());
            assertThat(leadingWhenLost).containsExactly(false);
            await().atMost(Duration.ofSeconds(10)).until(() -> worker.connections() == 0);
            cluster.close();
        }
    }
}

package dev.baton.work.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The worker -> process assignment in the store ({@code worker:assignments}) follows the leader's, even when a write
 * of it fails: what the store is not known to have is written again at the next registry refresh. Other processes
 * and the next leader read it from there.
 */
class AssignmentRecordTest {

    private final SimCluster sim = new SimCluster().withWorkers(4);

    @AfterEach
    void close() {
        sim.close();
    }

    private Map<String, String> stored() {
        Map<String, String> owners = new TreeMap<>();
        sim.store.maps().mapEntries(SimCluster.GROUP, "worker:assignments").join()
                .forEach((worker, value) -> owners.put(worker, new String(value.value(), StandardCharsets.UTF_8)));
        return owners;
    }

    @Test
    void anAssignmentWhoseWriteFailedIsWrittenAgain() {
        SimCluster.Node p1 = sim.start("p1");
        sim.run(Duration.ofSeconds(2));
        sim.start("p2");
        sim.run(Duration.ofSeconds(3));
        assertThat(stored().values()).containsOnly("p1", "p2"); // nobody has global listeners: spread over both

        p1.faults.fail(); // the leader's store calls fail just while it takes all workers for its global listener
        p1.cluster.addGlobalDetectionListener(result -> { });
        sim.settle();
        p1.faults.heal();
        assertThat(stored().values()).contains("p2");

        sim.run(Duration.ofSeconds(2));
        assertThat(stored()).hasSize(4).allSatisfy((worker, process) -> assertThat(process).isEqualTo("p1"));
    }
}

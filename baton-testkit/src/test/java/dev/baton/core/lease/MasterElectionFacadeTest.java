package dev.baton.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.Capabilities;
import dev.baton.core.Role;
import dev.baton.core.compat.MasterElection;
import dev.baton.core.compat.MasterElectionListener;
import dev.baton.core.compat.ProcessInfo;
import dev.baton.core.compat.SlaveNode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Seed 000's interface and event timing guarantees, through the {@link MasterElection} facade. */
class MasterElectionFacadeTest {

    private final Cluster cluster = new Cluster();

    private static final class Recorder implements MasterElectionListener {
        final List<String> seen = new CopyOnWriteArrayList<>();

        public void onMasterAcquired() {
            seen.add("master-acquired");
        }

        public void onMasterLost() {
            seen.add("master-lost");
        }

        public void onElectionStarted() {
            seen.add("election-started");
        }

        public void onElectionCompleted(boolean isMaster) {
            seen.add("election-completed:" + isMaster);
        }

        public void onSlaveRegistered(SlaveNode slave) {
            seen.add("slave-registered:" + slave.nodeId());
        }

        public void onSlaveRemoved(String nodeId) {
            seen.add("slave-removed:" + nodeId);
        }

        public void onError(Throwable error) {
            seen.add("error");
        }
    }

    private record Process(Cluster.Node node, MasterElection facade, Recorder events) {
    }

    private Process process(String id) {
        Cluster.Node node = cluster.add(id);
        MasterElection facade = MasterElection.over(node.election);
        Recorder recorder = new Recorder();
        facade.addListener(recorder);
        var started = facade.start();
        cluster.scheduler.runUntilIdle();
        assertThat(started).isCompleted();
        return new Process(node, facade, recorder);
    }

    @Test
    void theFirstProcessBecomesMasterAndTheSecondASlave() {
        Process master = process("m");
        Process slave = process("s");

        assertThat(master.facade().getIsMaster()).isTrue();
        assertThat(slave.facade().getIsMaster()).isFalse();
        assertThat(master.events().seen).startsWith("election-started", "master-acquired", "election-completed:true");
        assertThat(slave.events().seen).containsExactly("election-started", "election-completed:false");
        assertThat(slave.facade().waitForElectionComplete(1000).join()).isFalse();
        assertThat(master.facade().getNodeId()).isEqualTo("m");
        assertThat(master.facade().getIdentifier()).isEqualTo("test-m");
    }

    @Test
    void slaveEventsReachTheMasterOnly() {
        Process master = process("m");
        Process slave = process("s");
        cluster.scheduler.runUntilIdle();

        assertThat(master.events().seen).contains("slave-registered:s");
        assertThat(slave.events().seen).noneMatch(e -> e.startsWith("slave-"));

        slave.facade().stop();
        cluster.scheduler.runUntilIdle();
        assertThat(master.events().seen).endsWith("slave-removed:s");
    }

    @Test
    void aSlaveWhoseHeartbeatsStopIsRemovedAfterTheProcessTtl() {
        Process master = process("m");
        Process slave = process("s");
        slave.node().link.hang();

        cluster.advance(cluster.config.processTtl().minusMillis(100));
        assertThat(master.events().seen).doesNotContain("slave-removed:s");
        cluster.advance(cluster.config.processTtl());

        assertThat(master.events().seen).contains("slave-removed:s");
    }

    @Test
    void theRegistryAnswersEverySeedQuery() {
        Process master = process("m");
        process("s");

        assertThat(master.facade().getAllProcesses().join()).extracting(ProcessInfo::processId)
                .containsExactly("m", "s");
        assertThat(master.facade().getMasterProcess().join()).map(ProcessInfo::processId).contains("m");
        assertThat(master.facade().getProcessesByRole("master").join()).extracting(ProcessInfo::nodeId)
                .containsExactly("m");
        assertThat(master.facade().getProcessesByRole("slave").join()).extracting(ProcessInfo::nodeId)
                .containsExactly("s");
        assertThat(master.facade().getSlaves().join()).extracting(SlaveNode::nodeId).containsExactly("s");
        assertThat(master.facade().getSlave("s").join()).isPresent();
        assertThat(master.facade().getSlave("m").join()).as("the master is no slave").isEmpty();
        assertThat(master.facade().getSlaveCount().join()).isEqualTo(1);
        assertThat(master.facade().getAllProcesses().join().get(1).channelName()).isEqualTo("worker:slave:s");
    }

    @Test
    void processesCanBeRegisteredHeartbeatAndUnregisteredByHand() {
        Process master = process("m");
        ProcessInfo worker = new ProcessInfo("w1", "w1", Role.FOLLOWER, null, new Capabilities(true, 50, 70));

        master.facade().registerProcess(worker).join();
        assertThat(master.facade().updateProcessHeartbeat("w1").join()).isTrue();
        assertThat(master.facade().getAllProcesses().join()).extracting(ProcessInfo::processId).contains("w1");
        assertThat(master.facade().getAllProcesses().join()).filteredOn(p -> p.processId().equals("w1"))
                .singleElement().satisfies(p -> assertThat(p.capabilities().maxSubscriptions()).isEqualTo(50));

        assertThat(master.facade().unregisterProcess("w1").join()).isTrue();
        assertThat(master.facade().updateProcessHeartbeat("w1").join()).isFalse();
    }

    @Test
    void metadataIsPublishedToTheRegistry() {
        Process master = process("m");

        master.facade().setMetadata(Map.of("version", "1.2.3"));

        assertThat(master.facade().getMetadata()).containsEntry("version", "1.2.3");
        assertThat(cluster.store.registry().member(cluster.group, "m").join().orElseThrow().metadata())
                .containsEntry("version", "1.2.3");
    }

    @Test
    void aMasterCutOffFromTheStoreLosesMastershipAndReportsAnError() {
        Process master = process("m");
        master.node().link.hang();

        cluster.advance(cluster.config.leaseTtl());

        assertThat(master.facade().getIsMaster()).isFalse();
        assertThat(master.events().seen).contains("master-lost", "error");
    }
}

package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.MemberState;
import dev.baton.peer.sim.LinkConditions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class QuorumSmokeTest {

    @Test
    void threeNodesElectOneLeaderAndFailOver() {
        SimCluster cluster = new SimCluster(1, 3, 3, QuorumConfig.fast(), LinkConditions.defaults(), true).startAll();
        cluster.advance(Duration.ofSeconds(3));
        System.out.println(cluster.describe());
        SimCluster.Node leader = cluster.leader();
        for (SimCluster.Node node : cluster.live()) {
            assertThat(node.node().currentLeader()).isEqualTo(leader.address);
            assertThat(cluster.stateOf(node.address)).isEqualTo(MemberState.ACTIVE);
        }
        long start = cluster.clock.nanoTime();
        cluster.crash(leader.address);
        while (cluster.leaders().isEmpty()) {
            cluster.advance(Duration.ofMillis(10));
        }
        System.out.println("failover " + Duration.ofNanos(cluster.clock.nanoTime() - start).toMillis() + " ms");
        System.out.println(cluster.describe());
    }
}

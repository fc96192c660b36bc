package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A follower's copy of the member table shows when each member was last heard from as the leader's table does, not
 * the member's join time: the leader re-sends the table every {@link LeaderDuties#lastSeenRefresh}.
 */
class QuorumFollowerViewTest {

    @Test
    void aFollowersLastSeenTimesKeepUpWithTheLeaders() {
        SimCluster cluster = new SimCluster(11, 3, 3, QuorumConfig.fast(),
                LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(3)), false);
        cluster.startWithState(1, 2, 3);
        cluster.advance(Duration.ofSeconds(5));
        SimCluster.Node leader = cluster.leader();
        SimCluster.Node follower = cluster.live().stream().filter(node -> node != leader).findFirst().orElseThrow();

        cluster.advance(Duration.ofSeconds(30));

        long now = cluster.clock.instant().toEpochMilli();
        long allowed = LeaderDuties.lastSeenRefresh(cluster.config).plus(cluster.config.heartbeatTimeout()).toMillis();
        Map<PeerAddress, Long> silentFor = new TreeMap<>();
        for (MemberEntry entry : follower.node().members()) {
            silentFor.put(entry.address(), now - entry.lastSeenMillis());
        }
        assertThat(silentFor).as("ms since each member was last seen, in the view of follower %s", follower.address)
                .hasSize(3).allSatisfy((address, silent) -> assertThat(silent).isBetween(0L, allowed));
    }
}

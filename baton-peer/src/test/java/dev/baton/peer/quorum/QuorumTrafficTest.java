package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.TrafficRecorder;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Messages per heartbeat interval in a settled cluster: a follower sends O(1), the leader O(N) (each follower's table
 * once per last-seen refresh among them).
 */
class QuorumTrafficTest {

    @Test
    void followersSendOneKeepAlivePerIntervalAndTheLeaderOneMessagePerMemberAndSeed() {
        int size = 25;
        int seeds = 3;
        SimCluster cluster = new SimCluster(51, size, seeds, QuorumConfig.fast(),
                LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(3)), false);
        for (int i = 1; i <= size; i++) {
            cluster.startWithState(i);
        }
        cluster.advance(Duration.ofSeconds(5));
        SimCluster.Node leader = cluster.leader();
        TrafficRecorder<QuorumMessage> traffic = new TrafficRecorder<>();
        cluster.network.addListener(traffic);
        int intervals = 20;
        cluster.advance(cluster.config.heartbeatInterval().multipliedBy(intervals));

        for (PeerAddress address : cluster.addresses) {
            double perInterval = (double) traffic.sentBy(address) / intervals;
            if (address.equals(leader.address)) {
                // One acknowledgement per follower, one keep-alive per other seed, and each follower's table once per
                // last-seen refresh.
                double tables = (double) (size - 1) * cluster.config.heartbeatInterval().toNanos()
                        / LeaderDuties.lastSeenRefresh(cluster.config).toNanos();
                assertThat(perInterval).isBetween((double) size - 1, (double) size - 1 + seeds + 1 + tables);
            } else if (cluster.config.seeds().contains(address)) {
                // A keep-alive to the leader and an answer to the leader's seed keep-alive.
                assertThat(perInterval).as("messages sent by seed %s", address).isBetween(1.9, 2.1);
            } else {
                assertThat(perInterval).as("keep-alives sent by %s", address).isBetween(0.9, 1.1);
            }
        }
        assertThat(traffic.sentPerType().keySet()).containsExactlyInAnyOrder(QuorumMessage.LeaderKeepAlive.class,
                QuorumMessage.LeaderKeepAliveAck.class, QuorumMessage.SeedKeepAlive.class,
                QuorumMessage.SeedKeepAliveAck.class, QuorumMessage.ClusterAlignment.class);
    }
}

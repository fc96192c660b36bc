package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.Leadership;
import dev.baton.peer.quorum.QuorumMessage.PreProposal;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.NetworkEvent;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Failover, check-quorum, the status query that prevents needless elections, and graceful hand-over. */
class QuorumElectionTest {

    private static SimCluster formed(int size) {
        SimCluster cluster = new SimCluster(21, size, size, QuorumConfig.fast(),
                LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(3)), true);
        for (int i = 1; i <= size; i++) {
            cluster.startWithState(i);
        }
        cluster.advance(Duration.ofSeconds(3));
        return cluster;
    }

    @Test
    void aCrashedLeaderIsReplacedAfterTtlTimeoutAndOneElection() {
        SimCluster cluster = formed(5);
        SimCluster.Node old = cluster.leader();
        long version = old.node().leaderVersion();
        long crashedAt = cluster.clock.nanoTime();
        cluster.crash(old.address);
        cluster.advanceUntil(Duration.ofSeconds(3), () -> !cluster.leaders().isEmpty());

        Duration failover = Duration.ofNanos(cluster.clock.nanoTime() - crashedAt);
        assertThat(failover).isBetween(Duration.ofMillis(900), Duration.ofMillis(1_500));
        SimCluster.Node successor = cluster.leader();
        assertThat(successor.node().leaderVersion()).isEqualTo(version + 1);
        Leadership leadership = successor.election.leadership().orElseThrow();
        assertThat(leadership.term()).isEqualTo(version + 1);
        assertThat(leadership.remaining()).isPositive().isLessThanOrEqualTo(cluster.config.heartbeatTimeout());
        cluster.advance(Duration.ofMillis(300));
        for (SimCluster.Node node : cluster.live()) {
            assertThat(node.election.leader()).hasValueSatisfying(l -> {
                assertThat(l.nodeId()).isEqualTo(successor.address.format());
                assertThat(l.term()).isEqualTo(version + 1);
            });
        }
    }

    @Test
    void aLeaderCutOffOnTheMinoritySideStepsDownBeforeTheMajorityElects() {
        SimCluster cluster = formed(5);
        SimCluster.Node old = cluster.leader();
        PeerAddress companion = cluster.addresses.stream().filter(a -> !a.equals(old.address)).findFirst()
                .orElseThrow();
        Set<PeerAddress> minority = Set.of(old.address, companion);
        Set<PeerAddress> majority = cluster.addresses.stream().filter(a -> !minority.contains(a))
                .collect(Collectors.toSet());
        long cutAt = cluster.clock.nanoTime();
        cluster.network.partition(minority, majority);
        cluster.advance(Duration.ofSeconds(3));

        ElectionEvent.LeadershipLost lost = old.events(ElectionEvent.LeadershipLost.class).get(0);
        assertThat(lost.reason()).isEqualTo(LossReason.EXPIRED_LOCALLY);
        assertThat(lost.at()).isBeforeOrEqualTo(instantAt(cluster, cutAt).plus(cluster.config.heartbeatTimeout()));
        SimCluster.Node successor = cluster.leader();
        assertThat(majority).contains(successor.address);
        Instant acquired = successor.events(ElectionEvent.LeadershipAcquired.class).get(0).at();
        assertThat(lost.at()).isBefore(acquired);

        cluster.network.heal();
        cluster.advance(Duration.ofSeconds(1));
        assertThat(old.node().currentLeader()).isEqualTo(successor.address);
    }

    @Test
    void noElectionStartsWhileAMajoritySeesTheLeaderHealthy() {
        SimCluster cluster = formed(3);
        SimCluster.Node leader = cluster.leader();
        SimCluster.Node cutOff = cluster.live().stream().filter(n -> n != leader).findFirst().orElseThrow();
        List<NetworkEvent.Sent<QuorumMessage>> sent = cluster.recordSent();
        cluster.network.cut(leader.address, cutOff.address);
        cluster.network.cut(cutOff.address, leader.address);
        long version = leader.node().leaderVersion();
        cluster.advance(Duration.ofSeconds(5));

        assertThat(sent).noneMatch(s -> s.message() instanceof PreProposal);
        assertThat(cluster.leader().address).isEqualTo(leader.address);
        assertThat(leader.node().leaderVersion()).isEqualTo(version);
    }

    @Test
    void aStepDownHandsOverToTheNamedSuccessorAtOnce() {
        SimCluster cluster = formed(5);
        SimCluster.Node old = cluster.leader();
        long version = old.node().leaderVersion();
        long askedAt = cluster.clock.nanoTime();
        old.election.stepDown();
        cluster.advanceUntil(Duration.ofMillis(100),
                () -> cluster.leaders().stream().anyMatch(n -> n.address != old.address));

        assertThat(Duration.ofNanos(cluster.clock.nanoTime() - askedAt)).isLessThan(Duration.ofMillis(50));
        SimCluster.Node successor = cluster.leader();
        assertThat(successor.address).isNotEqualTo(old.address);
        assertThat(successor.node().leaderVersion()).isEqualTo(version + 1);
        ElectionEvent.LeadershipLost lost = old.events(ElectionEvent.LeadershipLost.class).get(0);
        assertThat(lost.reason()).isEqualTo(LossReason.RELEASED);
        assertThat(lost.term()).isEqualTo(version);
        cluster.advance(Duration.ofMillis(500));
        assertThat(old.node().currentLeader()).as("the old leader follows").isEqualTo(successor.address);
    }

    @Test
    void closingTheLeaderHandsOverAndLeavesTheTable() {
        SimCluster cluster = formed(3);
        SimCluster.Node old = cluster.leader();
        long askedAt = cluster.clock.nanoTime();
        old.election.closeAsync();
        cluster.advance(Duration.ofMillis(1));
        cluster.crash(old.address);
        cluster.advanceUntil(Duration.ofMillis(100), () -> !cluster.leaders().isEmpty());

        assertThat(Duration.ofNanos(cluster.clock.nanoTime() - askedAt)).isLessThan(Duration.ofMillis(50));
        assertThat(cluster.leader().node().tableState(old.address)).isNull();
        assertThat(old.election.state()).isEqualTo(dev.baton.core.NodeState.STOPPED);
        assertThat(old.election.whenElected()).isCompleted();
    }

    @Test
    void everyNewLeaderHasAHigherTerm() {
        SimCluster cluster = formed(3);
        List<Long> terms = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            SimCluster.Node leader = cluster.leader();
            terms.add(leader.election.leadership().orElseThrow().term());
            cluster.restart(leader.address, true);
            cluster.advance(Duration.ofSeconds(3));
        }
        terms.add(cluster.leader().election.leadership().orElseThrow().term());
        assertThat(terms).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void leadershipIsNoLongerValidOnceCheckQuorumWouldFail() {
        SimCluster cluster = formed(3);
        SimCluster.Node leader = cluster.leader();
        Leadership leadership = leader.election.leadership().orElseThrow();
        for (PeerAddress address : cluster.addresses) {
            if (!address.equals(leader.address)) {
                cluster.crash(address);
            }
        }
        cluster.advance(cluster.config.heartbeatTimeout());
        assertThat(leadership.isValid()).isFalse();
        assertThat(leader.election.isLeader()).isFalse();
        assertThat(leader.events(ElectionEvent.LeadershipLost.class)).singleElement()
                .satisfies(l -> assertThat(l.reason()).isEqualTo(LossReason.EXPIRED_LOCALLY));
    }

    private static Instant instantAt(SimCluster cluster, long nanos) {
        return cluster.clock.instant().minusNanos(cluster.clock.nanoTime() - nanos);
    }
}

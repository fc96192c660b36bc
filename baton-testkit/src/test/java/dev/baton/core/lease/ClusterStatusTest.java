package dev.baton.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ClusterStatus;
import dev.baton.core.ElectionEvent.MemberRemoved;
import dev.baton.core.ElectionEvent.MemberStateChanged;
import dev.baton.core.LeaderInfo;
import dev.baton.core.MemberState;
import dev.baton.core.MemberStatus;
import dev.baton.core.NodeInfo;
import dev.baton.core.NodeState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Node states, the degraded flag and the cluster snapshot that the HTTP API serves. */
class ClusterStatusTest {

    private final Cluster cluster = new Cluster();

    @Test
    void statesFollowTheElection() {
        Cluster.Node a = cluster.add("a");
        assertThat(a.election.state()).isEqualTo(NodeState.FOLLOWER);
        a.election.start();
        cluster.scheduler.runUntilIdle();
        Cluster.Node b = cluster.start("b");

        assertThat(a.election.state()).isEqualTo(NodeState.LEADER);
        assertThat(b.election.state()).isEqualTo(NodeState.FOLLOWER);

        a.election.closeAsync();
        cluster.scheduler.runUntilIdle();

        assertThat(a.election.state()).isEqualTo(NodeState.STOPPED);
        assertThat(b.election.state()).isEqualTo(NodeState.LEADER);
    }

    @Test
    void aNodeIsACandidateWhileItsAcquireIsInFlight() {
        Cluster.Node a = cluster.add("a");
        a.link.hang();
        a.election.start();
        cluster.scheduler.runUntilIdle();

        assertThat(a.election.state()).isEqualTo(NodeState.CANDIDATE);

        cluster.advance(cluster.config.storeTimeout());

        assertThat(a.election.state()).isEqualTo(NodeState.FOLLOWER);
    }

    @Test
    void aStoreProblemIsReportedUntilACallSucceedsAgain() {
        Cluster.Node a = cluster.start("a");
        assertThat(a.election.problem()).isEmpty();

        a.link.fail();
        cluster.advance(cluster.config.renewInterval().plusMillis(10));

        assertThat(a.election.problem()).hasValueSatisfying(p -> assertThat(p).contains("store unreachable"));

        a.link.heal();
        cluster.advance(cluster.config.retryInterval().multipliedBy(2));

        assertThat(a.election.problem()).isEmpty();
        assertThat(a.leads()).isTrue();
    }

    @Test
    void statusListsMembersWithTheLeaderAndItsTerm() {
        Cluster.Node a = cluster.start("a");
        cluster.start("b");
        cluster.start("c");

        ClusterStatus status = cluster.node("b").election.status().join();

        assertThat(status.nodeId()).isEqualTo("b");
        assertThat(status.state()).isEqualTo(NodeState.FOLLOWER);
        assertThat(status.leader()).contains(new LeaderInfo("a", 1));
        assertThat(status.term()).isEqualTo(1);
        assertThat(status.clusterSize()).isEqualTo(3);
        assertThat(status.ready()).isTrue();
        assertThat(status.members()).extracting(m -> m.node().id()).containsExactly("a", "b", "c");
        assertThat(status.members()).extracting(MemberStatus::state).containsOnly(MemberState.ACTIVE);
        assertThat(status.leaderNode()).map(NodeInfo::id).contains("a");
        assertThat(a.election.status().join().isLeader()).isTrue();
    }

    @Test
    void aSilentMemberIsMarkedUnreachableThenRemoved() {
        Cluster.Node a = cluster.start("a");
        Cluster.Node b = cluster.start("b");
        cluster.advance(Duration.ofSeconds(1));
        b.link.hang();

        cluster.advance(cluster.config.processHeartbeatInterval().multipliedBy(3));

        assertThat(a.events(MemberStateChanged.class)).singleElement().satisfies(changed -> {
            assertThat(changed.member().id()).isEqualTo("b");
            assertThat(changed.from()).isEqualTo(MemberState.ACTIVE);
            assertThat(changed.to()).isEqualTo(MemberState.UNREACHABLE);
        });
        assertThat(a.election.status().join().members())
                .filteredOn(m -> m.node().id().equals("b")).extracting(MemberStatus::state)
                .containsExactly(MemberState.UNREACHABLE);
        assertThat(a.events(MemberRemoved.class)).isEmpty();

        cluster.advance(cluster.config.processTtl());

        assertThat(a.events(MemberRemoved.class)).extracting(MemberRemoved::nodeId).containsExactly("b");
    }

    @Test
    void healthComparesStoreStampsOnlyWithEachOther() {
        Instant now = Instant.parse("2026-11-21T10:00:00Z");
        NodeInfo fresh = NodeInfo.of("fresh", "t").withTimes(now, now);
        NodeInfo late = NodeInfo.of("late", "t").withTimes(now, now.minusSeconds(21));
        NodeInfo borderline = NodeInfo.of("borderline", "t").withTimes(now, now.minusSeconds(20));

        List<MemberStatus> health = LeaseMembership.health(List.of(fresh, late, borderline), Duration.ofSeconds(10));

        assertThat(health).extracting(MemberStatus::state)
                .containsExactly(MemberState.ACTIVE, MemberState.UNREACHABLE, MemberState.ACTIVE);
        assertThat(LeaseMembership.health(List.of(), Duration.ofSeconds(10))).isEmpty();
    }
}

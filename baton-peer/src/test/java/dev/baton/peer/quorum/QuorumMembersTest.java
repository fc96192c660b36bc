package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionEvent;
import dev.baton.core.MemberState;
import dev.baton.peer.quorum.QuorumMessage.ProbeRequest;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.NetworkEvent;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Seed 003's member states (joining, active, unreachable, leaving, removed), their timings and the indirect check. */
class QuorumMembersTest {

    private static SimCluster formed(int size) {
        SimCluster cluster = new SimCluster(11, size, size, QuorumConfig.fast(),
                LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(3)), true);
        for (int i = 1; i <= size; i++) {
            cluster.startWithState(i);
        }
        cluster.advance(Duration.ofSeconds(3));
        return cluster;
    }

    private static SimCluster.Node follower(SimCluster cluster) {
        PeerAddress leader = cluster.leader().address;
        return cluster.live().stream().filter(n -> !n.address.equals(leader)).findFirst().orElseThrow();
    }

    @Test
    void aSilentMemberBecomesUnreachableThenLeavingThenRemovedOnTime() {
        SimCluster cluster = formed(3);
        SimCluster.Node leader = cluster.leader();
        SimCluster.Node silent = follower(cluster);
        SimCluster.Node other = cluster.live().stream().filter(n -> n != leader && n != silent).findFirst()
                .orElseThrow();
        leader.events.clear();
        long crashedAt = cluster.clock.nanoTime();
        cluster.crash(silent.address);
        cluster.advance(Duration.ofSeconds(2));

        List<ElectionEvent.MemberStateChanged> changes = leader.events(ElectionEvent.MemberStateChanged.class)
                .stream().filter(e -> e.member().id().equals(silent.address.format())).toList();
        assertThat(changes).extracting(ElectionEvent.MemberStateChanged::to)
                .containsExactly(MemberState.UNREACHABLE, MemberState.LEAVING);
        QuorumConfig config = cluster.config;
        long unreachableAfter = millisSince(crashedAt, changes.get(0).at(), cluster);
        long leavingAfter = millisSince(crashedAt, changes.get(1).at(), cluster);
        // Unreachable once heartbeatTimeout has passed and the indirect probe failed too.
        assertThat(unreachableAfter).isBetween(config.heartbeatTimeout().toMillis(),
                config.heartbeatTimeout().plus(config.probeTimeout()).plus(config.heartbeatInterval().multipliedBy(2))
                        .toMillis());
        // Leaving once ttlTimeout has passed, removed after the clean-up on the next round.
        assertThat(leavingAfter).isBetween(config.ttlTimeout().toMillis(),
                config.ttlTimeout().plus(config.heartbeatInterval().multipliedBy(2)).toMillis());
        assertThat(leader.events(ElectionEvent.MemberRemoved.class)).extracting(ElectionEvent.MemberRemoved::nodeId)
                .containsExactly(silent.address.format());
        assertThat(leader.node().tableState(silent.address)).isNull();
        assertThat(other.node().members()).extracting(MemberEntry::address).doesNotContain(silent.address);
    }

    @Test
    void oneSlowLinkDoesNotEvictAMemberBecauseOthersStillReachIt() {
        SimCluster cluster = formed(5);
        SimCluster.Node leader = cluster.leader();
        SimCluster.Node member = follower(cluster);
        List<NetworkEvent.Sent<QuorumMessage>> sent = cluster.recordSent();
        cluster.network.cut(leader.address, member.address);
        cluster.network.cut(member.address, leader.address);
        long version = leader.node().leaderVersion();
        cluster.advance(Duration.ofSeconds(5));

        assertThat(cluster.leader().address).isEqualTo(leader.address);
        assertThat(leader.node().leaderVersion()).isEqualTo(version);
        assertThat(leader.node().tableState(member.address)).isEqualTo(MemberState.ACTIVE);
        List<ProbeRequest> probes = sent.stream().filter(s -> s.from().equals(leader.address))
                .map(NetworkEvent.Sent::message).filter(ProbeRequest.class::isInstance).map(ProbeRequest.class::cast)
                .toList();
        assertThat(probes).isNotEmpty().allSatisfy(p -> assertThat(p.target()).isEqualTo(member.address));
        assertThat(sent.stream().filter(s -> s.message() instanceof ProbeRequest).map(NetworkEvent.Sent::to)
                .distinct().count()).as("asks other members to probe").isGreaterThanOrEqualTo(2);
    }

    @Test
    void anUnreachableMemberThatIsHeardAgainIsActiveAgain() {
        SimCluster cluster = formed(3);
        SimCluster.Node leader = cluster.leader();
        SimCluster.Node member = follower(cluster);
        cluster.network.partition(Set.of(member.address),
                Set.copyOf(cluster.addresses.stream().filter(a -> !a.equals(member.address)).toList()));
        cluster.advance(Duration.ofMillis(850));
        assertThat(leader.node().tableState(member.address)).isEqualTo(MemberState.UNREACHABLE);

        cluster.network.heal();
        cluster.advance(Duration.ofMillis(300));
        assertThat(leader.node().tableState(member.address)).isEqualTo(MemberState.ACTIVE);
        assertThat(leader.events(ElectionEvent.MemberStateChanged.class)).extracting(ElectionEvent.MemberStateChanged::to)
                .containsSubsequence(MemberState.UNREACHABLE, MemberState.ACTIVE);
    }

    @Test
    void aMemberThatLeavesIsRemovedWithoutWaitingForTimeouts() {
        SimCluster cluster = formed(3);
        SimCluster.Node leader = cluster.leader();
        SimCluster.Node member = follower(cluster);
        leader.events.clear();
        member.election.closeAsync();
        cluster.advance(Duration.ofMillis(250));

        assertThat(leader.events(ElectionEvent.MemberStateChanged.class)).extracting(ElectionEvent.MemberStateChanged::to)
                .containsExactly(MemberState.LEAVING);
        assertThat(leader.events(ElectionEvent.MemberRemoved.class)).hasSize(1);
    }

    @Test
    void newcomersGetTheWholeTableNotOnlyActiveMembers() {
        // Exceptional case 3: the alignment a newcomer gets lists every member the leader has, in its state.
        SimCluster cluster = new SimCluster(12, 5, 5, QuorumConfig.fast(),
                LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(3)), true);
        cluster.startWithState(1, 2, 3, 4);
        cluster.advance(Duration.ofSeconds(3));
        SimCluster.Node leader = cluster.leader();
        SimCluster.Node silent = follower(cluster);
        cluster.crash(silent.address);
        cluster.advance(Duration.ofMillis(850));
        assertThat(leader.node().tableState(silent.address)).isEqualTo(MemberState.UNREACHABLE);

        SimCluster.Node newcomer = cluster.start(cluster.addresses.get(4), SimCluster.savedState());
        cluster.advance(Duration.ofMillis(100));
        assertThat(newcomer.node().members()).anySatisfy(e -> {
            assertThat(e.address()).isEqualTo(silent.address);
            assertThat(e.state()).isEqualTo(MemberState.UNREACHABLE);
        });
    }

    @Test
    void statusListsEveryMemberWithItsSeedState() {
        SimCluster cluster = formed(3);
        SimCluster.Node leader = cluster.leader();
        SimCluster.Node member = follower(cluster);
        var status = member.election.status();
        cluster.advance(Duration.ofMillis(1));

        assertThat(status).isCompleted();
        assertThat(status.join().leader()).hasValueSatisfying(l -> assertThat(l.nodeId())
                .isEqualTo(leader.address.format()));
        assertThat(status.join().members()).hasSize(3).allSatisfy(m -> assertThat(m.state())
                .isEqualTo(MemberState.ACTIVE));
        assertThat(status.join().leaderNode()).hasValueSatisfying(n -> assertThat(n.id())
                .isEqualTo(leader.address.format()));
    }

    private static long millisSince(long startNanos, java.time.Instant at, SimCluster cluster) {
        java.time.Instant start = cluster.clock.instant().minusNanos(cluster.clock.nanoTime() - startNanos);
        return Duration.between(start, at).toMillis();
    }
}

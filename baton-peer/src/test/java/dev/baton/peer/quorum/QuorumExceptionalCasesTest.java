package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.Capabilities;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.MemberState;
import dev.baton.peer.MemberCard;
import dev.baton.peer.quorum.QuorumMessage.FormalProposal;
import dev.baton.peer.quorum.QuorumMessage.FormalVote;
import dev.baton.peer.quorum.QuorumMessage.JoinClusterRequest;
import dev.baton.peer.quorum.QuorumMessage.JoinClusterResponse;
import dev.baton.peer.quorum.QuorumMessage.LeaderKeepAlive;
import dev.baton.peer.quorum.QuorumMessage.LeaderKeepAliveAck;
import dev.baton.peer.quorum.QuorumMessage.LeaderQuery;
import dev.baton.peer.quorum.QuorumMessage.LeaderRelieve;
import dev.baton.peer.quorum.QuorumMessage.LeaderResponse;
import dev.baton.peer.quorum.QuorumMessage.LeaderStatusQuery;
import dev.baton.peer.quorum.QuorumMessage.LeaderStatusQueryResponse;
import dev.baton.peer.quorum.QuorumMessage.MemberStatusUpdate;
import dev.baton.peer.quorum.QuorumMessage.NewLeader;
import dev.baton.peer.quorum.QuorumMessage.PreProposal;
import dev.baton.peer.quorum.QuorumMessage.PreVote;
import dev.baton.peer.quorum.QuorumMessage.ReJoinCluster;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.NetworkEvent;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Seed 003's four exceptional cases, its leader conflict process, and its lone-seed behaviour (opt-in only). */
class QuorumExceptionalCasesTest {

    private static MemberCard card(PeerAddress address) {
        return new MemberCard(address.host(), null, Capabilities.DEFAULT, Map.of());
    }

    @Test
    void case1_aMemberThatLearnedTheNewLeaderDoesNotElectAgainOnItsOldStatusQuery() {
        // member1 (played by p3) wins version 5 while member2 (n2, real) still waits for answers to the status
        // query it sent when leader 4 (p1) went silent. The late "leader is offline" answer must not start an
        // election: member2's would be for version 4 + 1 = 5, which is decided.
        SimCluster cluster = new SimCluster(41, 3, 3, QuorumConfig.fast(), LinkConditions.instant(), true);
        PeerAddress n1 = cluster.addresses.get(0);
        PeerAddress n2 = cluster.addresses.get(1);
        PeerAddress n3 = cluster.addresses.get(2);
        FakePeer oldLeader = new FakePeer(cluster, n1);
        FakePeer member1 = new FakePeer(cluster, n3);
        cluster.startWithState(2);
        oldLeader.send(n2, new NewLeader(4, n1, cluster.clock.nanoTime()));
        cluster.advance(Duration.ofMillis(1));
        LeaderKeepAlive keepAlive = oldLeader.last(LeaderKeepAlive.class);
        oldLeader.send(n2, new LeaderKeepAliveAck(4, keepAlive.sentAt(), cluster.clock.nanoTime(), 0));
        cluster.advanceUntil(Duration.ofSeconds(2), () -> !member1.received(LeaderStatusQuery.class).isEmpty());
        LeaderStatusQuery query = member1.last(LeaderStatusQuery.class);
        assertThat(query.version()).isEqualTo(4);

        Ballot won = new Ballot(5, 0, n3);
        member1.send(n2, new PreProposal(won, false));
        member1.send(n2, new FormalProposal(won, n3, false));
        member1.send(n2, new NewLeader(5, n3, QuorumMessage.NO_STAMP));
        cluster.advance(Duration.ofMillis(1));
        assertThat(member1.last(PreVote.class).accepted()).isTrue();
        assertThat(member1.last(FormalVote.class).accepted()).isTrue();
        assertThat(cluster.node(n2).node().currentLeader()).isEqualTo(n3);

        member1.send(n2, new LeaderStatusQueryResponse(query.queryId(), false, null, 4, 1));
        cluster.advance(Duration.ofMillis(500));
        assertThat(member1.received(PreProposal.class)).as("no second election").isEmpty();
        assertThat(oldLeader.received(PreProposal.class)).isEmpty();
        assertThat(cluster.node(n2).node().leaderVersion()).isEqualTo(5);
    }

    @Test
    void case2_aStatusUpdateThatOvertakesTheJoinAnswerIsKeptAndNotAnswered() {
        SimCluster cluster = new SimCluster(42, 3, 1, QuorumConfig.fast(), LinkConditions.instant(), true);
        PeerAddress n1 = cluster.addresses.get(0);
        PeerAddress n2 = cluster.addresses.get(1);
        FakePeer leader = new FakePeer(cluster, n1);
        List<NetworkEvent.Sent<QuorumMessage>> sent = cluster.recordSent();
        SimCluster.Node joiner = cluster.start(n2, SimCluster.savedState());
        cluster.advance(Duration.ofMillis(1));
        leader.last(LeaderQuery.class);
        leader.send(n2, new LeaderResponse(n1, 4));
        cluster.advance(Duration.ofMillis(1));
        assertThat(leader.received(JoinClusterRequest.class)).hasSize(1);

        // The leader sent the answer first and the update second, but the update is handled first.
        leader.send(n2, new MemberStatusUpdate(4, new MemberEntry(n2, card(n2), MemberState.JOINING, 2, 1, 1)));
        leader.send(n2, new JoinClusterResponse(true, 4, n1, null));
        cluster.advance(Duration.ofMillis(1));
        assertThat(joiner.node().currentLeader()).isEqualTo(n1);
        assertThat(joiner.node().members()).filteredOn(e -> e.address().equals(n2)).singleElement()
                .satisfies(e -> assertThat(e.state()).isEqualTo(MemberState.JOINING));
        assertThat(joiner.node().members()).as("its leader, known before the leader's table arrives")
                .extracting(MemberEntry::address).containsExactly(n1, n2);

        leader.send(n2, new MemberStatusUpdate(4, new MemberEntry(n2, card(n2), MemberState.ACTIVE, 3, 1, 1)));
        leader.send(n2, new MemberStatusUpdate(4, new MemberEntry(n2, card(n2), MemberState.JOINING, 1, 1, 1)));
        cluster.advance(Duration.ofMillis(1));
        assertThat(joiner.node().members()).filteredOn(e -> e.address().equals(n2)).singleElement()
                .satisfies(e -> assertThat(e.state()).as("a late, older update changes nothing")
                        .isEqualTo(MemberState.ACTIVE));
        List<QuorumMessage> byJoiner = sent.stream().filter(s -> s.from().equals(n2))
                .map(NetworkEvent.Sent::message).toList();
        assertThat(byJoiner).filteredOn(JoinClusterRequest.class::isInstance).hasSize(1);
        assertThat(byJoiner).as("nothing but keep-alives after joining")
                .allMatch(m -> m instanceof LeaderQuery || m instanceof JoinClusterRequest
                        || m instanceof LeaderKeepAlive);
    }

    @Test
    void case4_joiningMembersAreToldToRejoinWhenTheirLeaderIsRelieved() {
        SimCluster cluster = new SimCluster(44, 5, 5, QuorumConfig.fast(),
                LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(3)), true);
        cluster.startWithState(1, 2, 3);
        FakePeer joiner = new FakePeer(cluster, cluster.addresses.get(3));
        FakePeer seed = new FakePeer(cluster, cluster.addresses.get(4));
        cluster.advance(Duration.ofSeconds(3));
        SimCluster.Node leader = cluster.leader();
        long version = leader.node().leaderVersion();
        joiner.send(leader.address, new JoinClusterRequest(card(joiner.address), version));
        cluster.advance(Duration.ofMillis(10));
        assertThat(leader.node().tableState(joiner.address)).isEqualTo(MemberState.JOINING);

        seed.send(leader.address, new LeaderRelieve(version, seed.address, version + 1));
        cluster.advance(Duration.ofMillis(10));

        assertThat(leader.events(ElectionEvent.LeadershipLost.class)).singleElement()
                .satisfies(l -> assertThat(l.reason()).isEqualTo(LossReason.LEASE_TAKEN));
        assertThat(joiner.received(ReJoinCluster.class)).as("the joining member is told too")
                .containsExactly(new ReJoinCluster(version));
        assertThat(seed.received(JoinClusterRequest.class)).as("the relieved leader rejoins the winner").hasSize(1);
    }

    @Test
    void aRelieveFromASeedThatDoesNotBeatTheLeaderIsIgnored() {
        SimCluster cluster = new SimCluster(45, 5, 5, QuorumConfig.fast(),
                LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(3)), true);
        cluster.startWithState(1, 2, 3);
        FakePeer seed = new FakePeer(cluster, cluster.addresses.get(4));
        cluster.advance(Duration.ofSeconds(3));
        SimCluster.Node leader = cluster.leader();
        long version = leader.node().leaderVersion();

        seed.send(leader.address, new LeaderRelieve(version, seed.address, version - 1));
        seed.send(leader.address, new LeaderRelieve(version - 1, seed.address, version + 1));
        cluster.advance(Duration.ofMillis(10));
        assertThat(cluster.leader().address).isEqualTo(leader.address);
    }

    @Test
    void byDefaultALoneSeedNeverMakesItselfLeader() {
        SimCluster cluster = new SimCluster(46, 3, 1, QuorumConfig.fast(), LinkConditions.instant(), true);
        cluster.startWithState(1);
        cluster.advance(Duration.ofSeconds(10));
        assertThat(cluster.leaders()).isEmpty();
    }

    @Test
    void optedInALoneSeedLeadsAtOnceWithVersionOne() {
        SimCluster cluster = new SimCluster(47, 3, 1, QuorumConfig.fast().allowLoneSeedBootstrap(true),
                LinkConditions.instant(), true);
        cluster.start(cluster.addresses.get(0));
        cluster.advance(Duration.ofMillis(150));
        SimCluster.Node leader = cluster.leader();
        assertThat(leader.election.leadership().orElseThrow().term()).isEqualTo(1);
        cluster.advance(Duration.ofSeconds(5));
        assertThat(cluster.leader()).as("and keeps leading without a majority").isSameAs(leader);
    }

    @Test
    void optedInIslandsAreMergedByLeaderRelieveOnceTheNetworkHeals() {
        SimCluster cluster = new SimCluster(48, 3, 2, QuorumConfig.fast().allowLoneSeedBootstrap(true),
                LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(3)), true);
        PeerAddress n1 = cluster.addresses.get(0);
        PeerAddress n2 = cluster.addresses.get(1);
        PeerAddress n3 = cluster.addresses.get(2);
        cluster.network.partition(Set.of(n1), Set.of(n2, n3));
        cluster.startAll();
        cluster.advance(Duration.ofSeconds(2));
        assertThat(cluster.leaders()).extracting(n -> n.address).containsExactlyInAnyOrder(n1, n2);
        List<NetworkEvent.Sent<QuorumMessage>> sent = cluster.recordSent();

        cluster.network.heal();
        cluster.advance(Duration.ofSeconds(2));
        // LEADER_CONFLICT_PROCESS: equal versions, so the larger address (n2) wins; n1 is relieved and rejoins.
        assertThat(cluster.leader().address).isEqualTo(n2);
        assertThat(sent).anySatisfy(s -> {
            assertThat(s.to()).isEqualTo(n1);
            assertThat(s.message()).isInstanceOf(LeaderRelieve.class);
        });
        assertThat(cluster.node(n1).events(ElectionEvent.LeadershipLost.class)).singleElement()
                .satisfies(l -> assertThat(l.reason()).isEqualTo(LossReason.LEASE_TAKEN));
        for (SimCluster.Node node : cluster.live()) {
            assertThat(node.node().currentLeader()).as("%s", cluster.describe()).isEqualTo(n2);
        }
    }
}

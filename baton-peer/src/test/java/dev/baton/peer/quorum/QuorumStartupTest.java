package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionEvent;
import dev.baton.core.MemberState;
import dev.baton.peer.quorum.QuorumMessage.JoinClusterRequest;
import dev.baton.peer.quorum.QuorumMessage.LeaderKeepAlive;
import dev.baton.peer.quorum.QuorumMessage.LeaderQuery;
import dev.baton.peer.quorum.QuorumMessage.LeaderStatusQuery;
import dev.baton.peer.quorum.QuorumMessage.PreProposal;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.NetworkEvent;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Seed 003's start-up: seed and non-seed start-up, the NORMAL and SEED joining processes, the majority rule. */
class QuorumStartupTest {

    private static SimCluster cluster(int size, int seeds) {
        return new SimCluster(7, size, seeds, QuorumConfig.fast(),
                LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(3)), true);
    }

    @Test
    void seedsFormTheFirstClusterByAnElectionThatAMajorityTakesPartIn() {
        SimCluster cluster = cluster(3, 3).startAll();
        cluster.advance(Duration.ofSeconds(3));

        SimCluster.Node leader = cluster.leader();
        assertThat(leader.events(ElectionEvent.LeadershipAcquired.class)).hasSize(1);
        for (SimCluster.Node node : cluster.live()) {
            assertThat(node.node().currentLeader()).isEqualTo(leader.address);
            assertThat(cluster.stateOf(node.address)).isEqualTo(MemberState.ACTIVE);
            assertThat(node.election.whenElected()).isCompleted();
        }
    }

    @Test
    void aLoneNodeFormsNoCluster() {
        SimCluster cluster = cluster(3, 3);
        SimCluster.Node lone = cluster.start(cluster.addresses.get(0), SimCluster.savedState());
        cluster.advance(Duration.ofSeconds(10));

        assertThat(cluster.leaders()).isEmpty();
        assertThat(lone.election.problem()).hasValueSatisfying(p -> assertThat(p).startsWith("no leader for"));
        assertThat(lone.election.whenElected()).isNotDone();
    }

    @Test
    void aNodeWithoutSavedStateMustHearFromEnoughNodesBeforeItVotes() {
        SimCluster cluster = cluster(3, 3);
        SimCluster.Node first = cluster.start(cluster.addresses.get(0));
        cluster.start(cluster.addresses.get(1));
        cluster.advance(Duration.ofSeconds(5));

        // N - M + 1 = 2 other nodes must answer; with only one other node up, neither may vote yet.
        assertThat(first.node().recovering()).isTrue();
        assertThat(first.election.problem()).hasValueSatisfying(p -> assertThat(p).contains("heard from 1 of the 2"));

        cluster.start(cluster.addresses.get(2));
        cluster.advance(Duration.ofSeconds(3));
        assertThat(cluster.leader()).isNotNull();
    }

    @Test
    void twoOfThreeNodesWithSavedStateElectWhileTheThirdIsDown() {
        SimCluster cluster = cluster(3, 3).startAll();
        cluster.advance(Duration.ofSeconds(3));
        long before = cluster.leader().node().leaderVersion();
        for (PeerAddress address : cluster.addresses) {
            cluster.crash(address);
        }
        cluster.restart(cluster.addresses.get(0), true);
        cluster.restart(cluster.addresses.get(1), true);
        cluster.advance(Duration.ofSeconds(3));

        assertThat(cluster.leader().node().leaderVersion()).isGreaterThan(before);
    }

    @Test
    void aSeedThatStartsLaterAsksTheOtherSeedsAndJoinsTheLeader() {
        SimCluster cluster = cluster(3, 3).startAll();
        cluster.advance(Duration.ofSeconds(3));
        SimCluster.Node leader = cluster.leader();
        long version = leader.node().leaderVersion();
        PeerAddress seed = cluster.addresses.stream().filter(a -> !a.equals(leader.address)).findFirst().orElseThrow();
        cluster.crash(seed);
        cluster.advance(Duration.ofSeconds(2));
        List<NetworkEvent.Sent<QuorumMessage>> sent = cluster.recordSent();

        cluster.restart(seed, true);
        cluster.advance(Duration.ofSeconds(1));

        // SEED_JOINING_PROCESS: ask the other seeds, then the NORMAL_JOINING_PROCESS with the leader they name.
        List<QuorumMessage> bySeed = sent.stream().filter(s -> s.from().equals(seed)).map(NetworkEvent.Sent::message)
                .toList();
        assertThat(bySeed.get(0)).isInstanceOf(LeaderQuery.class);
        assertThat(bySeed).anySatisfy(m -> assertThat(m).isInstanceOf(JoinClusterRequest.class));
        assertThat(cluster.node(seed).node().currentLeader()).isEqualTo(leader.address);
        assertThat(cluster.stateOf(seed)).isEqualTo(MemberState.ACTIVE);
        assertThat(cluster.leader().node().leaderVersion()).as("no election was needed").isEqualTo(version);
    }

    @Test
    void aNonSeedJoinsThroughASeedAsJoiningThenActive() {
        SimCluster cluster = cluster(3, 2);
        PeerAddress newcomer = cluster.addresses.get(2);
        List<NetworkEvent.Sent<QuorumMessage>> sent = cluster.recordSent();
        cluster.startWithState(1, 2);
        cluster.advance(Duration.ofSeconds(3));
        SimCluster.Node leader = cluster.leader();

        cluster.start(newcomer, SimCluster.savedState());
        cluster.advance(Duration.ofSeconds(1));

        List<QuorumMessage> byNewcomer = sent.stream().filter(s -> s.from().equals(newcomer))
                .map(NetworkEvent.Sent::message).toList();
        assertThat(byNewcomer.get(0)).isInstanceOf(LeaderQuery.class);
        int join = indexOf(byNewcomer, JoinClusterRequest.class);
        assertThat(join).isPositive();
        assertThat(byNewcomer.get(join + 1)).isInstanceOf(LeaderKeepAlive.class);
        List<ElectionEvent> aboutNewcomer = leader.events.stream().filter(e -> mentions(e, newcomer)).toList();
        assertThat(aboutNewcomer).hasSize(2);
        assertThat(aboutNewcomer.get(0)).isInstanceOfSatisfying(ElectionEvent.MemberJoined.class,
                e -> assertThat(e.member().id()).isEqualTo(newcomer.format()));
        assertThat(aboutNewcomer.get(1)).isInstanceOfSatisfying(ElectionEvent.MemberStateChanged.class, e -> {
            assertThat(e.from()).isEqualTo(MemberState.JOINING);
            assertThat(e.to()).isEqualTo(MemberState.ACTIVE);
        });
        assertThat(cluster.node(newcomer).node().members()).extracting(MemberEntry::address)
                .containsExactlyInAnyOrderElementsOf(cluster.addresses);
    }

    @Test
    void aNonSeedWithNoLeaderKeepsAskingTheSeedsButNeverStartsAnElection() {
        SimCluster cluster = cluster(3, 1);
        PeerAddress nonSeed = cluster.addresses.get(2);
        cluster.start(nonSeed, SimCluster.savedState());
        List<NetworkEvent.Sent<QuorumMessage>> sent = cluster.recordSent();
        cluster.advance(Duration.ofSeconds(5));

        List<QuorumMessage> byNonSeed = sent.stream().filter(s -> s.from().equals(nonSeed))
                .map(NetworkEvent.Sent::message).toList();
        assertThat(byNonSeed).filteredOn(m -> m instanceof LeaderQuery).hasSizeGreaterThanOrEqualTo(40);
        assertThat(byNonSeed).noneMatch(m -> m instanceof LeaderStatusQuery || m instanceof PreProposal);
    }

    @Test
    void aJoinBeyondTheClusterSizeIsRefused() {
        SimCluster cluster = cluster(3, 3);
        cluster.startWithState(1, 2, 3);
        cluster.advance(Duration.ofSeconds(3));
        PeerAddress fourth = PeerAddress.of("n4", 7400);
        SimCluster.Node extra = cluster.start(fourth, SimCluster.savedState());
        cluster.advance(Duration.ofSeconds(2));

        assertThat(extra.node().currentLeader()).isNull();
        assertThat(extra.events(ElectionEvent.ElectionError.class))
                .anySatisfy(e -> assertThat(e.message()).contains("cluster full: clusterSize is 3"));
        assertThat(cluster.leader().node().tableState(fourth)).isNull();
    }

    private static boolean mentions(ElectionEvent event, PeerAddress address) {
        if (event instanceof ElectionEvent.MemberJoined joined) {
            return joined.member().id().equals(address.format());
        }
        if (event instanceof ElectionEvent.MemberStateChanged changed) {
            return changed.member().id().equals(address.format());
        }
        return false;
    }

    private static int indexOf(List<QuorumMessage> messages, Class<?> type) {
        for (int i = 0; i < messages.size(); i++) {
            if (type.isInstance(messages.get(i))) {
                return i;
            }
        }
        return -1;
    }
}

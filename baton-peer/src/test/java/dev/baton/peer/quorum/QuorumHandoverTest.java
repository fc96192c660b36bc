package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.peer.quorum.QuorumMessage.FormalProposal;
import dev.baton.peer.quorum.QuorumMessage.FormalVote;
import dev.baton.peer.quorum.QuorumMessage.LeaderResign;
import dev.baton.peer.quorum.QuorumMessage.PreProposal;
import dev.baton.peer.quorum.QuorumMessage.PreVote;
import dev.baton.peer.quorum.QuorumMessage.Refusal;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.NetworkEvent;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Graceful hand-over (a leader's {@code close()} or {@code stepDown()}): the named successor proposes itself under the
 * hand-over ballot without a pre-proposal, and the acceptances are its first majority, so a hand-over costs the
 * resignation and one round trip. Still a majority must accept, the term still rises, and an acceptor backs the
 * candidate it accepted for ttlTimeout as a follower backs its leader.
 */
class QuorumHandoverTest {

    /** Every link takes exactly 1 ms, so a protocol's round trips can be counted on the clock. */
    private static final Duration LINK = Duration.ofMillis(1);

    private static SimCluster formed(int size) {
        SimCluster cluster = new SimCluster(33, size, size, QuorumConfig.fast(), LinkConditions.delayed(LINK, LINK),
                true);
        for (int i = 1; i <= size; i++) {
            cluster.startWithState(i);
        }
        cluster.advance(Duration.ofSeconds(3));
        return cluster;
    }

    @Test
    void aClosingLeaderIsSucceededAfterTheResignationAndOneRoundTripWithoutAPreProposal() {
        SimCluster cluster = formed(5);
        SimCluster.Node old = cluster.leader();
        long version = old.node().leaderVersion();
        List<NetworkEvent.Sent<QuorumMessage>> sent = cluster.recordSent();
        long closedAt = cluster.clock.nanoTime();
        old.election.closeAsync();
        cluster.advanceUntil(Duration.ofMillis(50),
                () -> cluster.leaders().stream().anyMatch(n -> !n.address.equals(old.address)));

        // LeaderResign, FormalProposal, FormalVote: three one-way trips, and the successor leads.
        assertThat(Duration.ofNanos(cluster.clock.nanoTime() - closedAt)).isEqualTo(LINK.multipliedBy(3));
        SimCluster.Node successor = cluster.leader();
        LeaderResign resign = sent.stream().map(NetworkEvent.Sent::message).filter(LeaderResign.class::isInstance)
                .map(LeaderResign.class::cast).findFirst().orElseThrow();
        assertThat(resign.successor()).isEqualTo(successor.address);
        assertThat(successor.election.leadership().orElseThrow().term()).isEqualTo(version + 1);
        assertThat(sent).noneMatch(s -> s.message() instanceof PreProposal);
        assertThat(sent).filteredOn(s -> s.message() instanceof FormalProposal).isNotEmpty()
                .allSatisfy(s -> assertThat(((FormalProposal) s.message()).ballot())
                        .isEqualTo(new Ballot(version + 1, Ballot.HANDOVER_ROUND, successor.address)));
        assertThat(old.events(ElectionEvent.LeadershipLost.class)).singleElement()
                .satisfies(lost -> assertThat(lost.reason()).isEqualTo(LossReason.RELEASED));

        cluster.advance(Duration.ofMillis(300));
        for (SimCluster.Node node : cluster.live()) {
            if (node != old) {
                assertThat(node.node().currentLeader()).isEqualTo(successor.address);
            }
        }
    }

    @Test
    void aStepDownUsesTheSameHandOverAndTheOldLeaderFollows() {
        SimCluster cluster = formed(3);
        SimCluster.Node old = cluster.leader();
        long version = old.node().leaderVersion();
        long askedAt = cluster.clock.nanoTime();
        old.election.stepDown();
        cluster.advanceUntil(Duration.ofMillis(50),
                () -> cluster.leaders().stream().anyMatch(n -> !n.address.equals(old.address)));

        assertThat(Duration.ofNanos(cluster.clock.nanoTime() - askedAt)).isEqualTo(LINK.multipliedBy(3));
        assertThat(cluster.leader().node().leaderVersion()).isEqualTo(version + 1);
        cluster.advance(Duration.ofMillis(300));
        assertThat(old.node().currentLeader()).isEqualTo(cluster.leader().address);
    }

    @Test
    void aSuccessorThatReachesNoMajorityDoesNotLeadAndTheTermStillRisesOnceHealed() {
        SimCluster cluster = formed(5);
        SafetyChecker checker = new SafetyChecker(cluster);
        SimCluster.Node old = cluster.leader();
        long version = old.node().leaderVersion();
        List<NetworkEvent.Sent<QuorumMessage>> sent = cluster.recordSent();
        old.election.closeAsync();
        cluster.advance(LINK.dividedBy(2));
        PeerAddress successor = sent.stream().map(NetworkEvent.Sent::message)
                .filter(LeaderResign.class::isInstance).map(m -> ((LeaderResign) m).successor()).findFirst()
                .orElseThrow();
        List<PeerAddress> others = cluster.addresses.stream()
                .filter(a -> !a.equals(successor) && !a.equals(old.address)).collect(Collectors.toList());
        // The resignation reaches everyone (the old leader is in no side), then the successor and one other node are
        // cut off from the remaining two: two votes of the three needed on either side.
        cluster.network.partition(Set.of(successor, others.get(0)), Set.of(others.get(1), others.get(2)));
        cluster.advance(LINK);
        cluster.crash(old.address);
        cluster.advance(Duration.ofSeconds(3), Duration.ofMillis(5), () -> {
            checker.check();
            assertThat(cluster.leaders()).as("a leader without a majority").isEmpty();
        });
        assertThat(sent).anySatisfy(s -> assertThat(s.message()).isInstanceOfSatisfying(FormalProposal.class,
                p -> assertThat(p.ballot().handover()).isTrue()));

        cluster.network.heal();
        cluster.advanceUntil(Duration.ofSeconds(5), () -> cluster.leaders().size() == 1);
        assertThat(cluster.leader().node().leaderVersion()).isGreaterThan(version);
        cluster.advance(Duration.ofSeconds(1), Duration.ofMillis(5), checker::check);
    }

    @Test
    void anAcceptorBacksTheCandidateItAcceptedForTtlTimeoutSoItsLeadershipEndsFirst() {
        SimCluster cluster = formed(5);
        SafetyChecker checker = new SafetyChecker(cluster);
        SimCluster.Node old = cluster.leader();
        long version = old.node().leaderVersion();
        List<NetworkEvent.Sent<QuorumMessage>> sent = cluster.recordSent();
        old.election.closeAsync();
        cluster.advanceUntil(Duration.ofMillis(50),
                () -> cluster.leaders().stream().anyMatch(n -> !n.address.equals(old.address)));
        SimCluster.Node successor = cluster.leader();
        long decidedAt = cluster.clock.nanoTime();
        List<PeerAddress> backers = sent.stream()
                .filter(s -> s.message() instanceof FormalVote vote && vote.accepted()
                        && s.to().equals(successor.address))
                .map(NetworkEvent.Sent::from).distinct().collect(Collectors.toList());
        assertThat(backers).hasSizeGreaterThanOrEqualTo(cluster.config.majority() - 1);

        // The successor is cut off at the moment it is decided: the backers never hear from it as their leader, and
        // the leader they followed resigned. Only their votes keep them from electing another leader at once.
        cluster.network.partition(Set.of(successor.address),
                cluster.addresses.stream().filter(a -> !a.equals(successor.address)).collect(Collectors.toSet()));
        cluster.crash(old.address);
        assertThat(successor.election.isLeader()).isTrue();
        FakePeer rival = new FakePeer(cluster, PeerAddress.of("rival", 7400));
        for (PeerAddress backer : backers) {
            rival.send(backer, new PreProposal(new Ballot(version + 2, 0, rival.address), false));
        }
        cluster.advance(LINK.multipliedBy(3), Duration.ofMillis(1), checker::check);
        assertThat(rival.received(PreVote.class)).hasSize(backers.size())
                .allSatisfy(vote -> assertThat(vote.refusal()).isEqualTo(Refusal.LEADER_ALIVE));

        // The cut-off successor steps down within heartbeatTimeout of the votes; only ttlTimeout after them can the
        // others elect, at a higher term.
        cluster.advanceUntil(cluster.config.heartbeatTimeout(), () -> !successor.election.isLeader());
        assertThat(successor.events(ElectionEvent.LeadershipLost.class)).singleElement()
                .satisfies(lost -> assertThat(lost.reason()).isEqualTo(LossReason.EXPIRED_LOCALLY));
        cluster.advance(Duration.ofSeconds(3), Duration.ofMillis(5), checker::check);
        SimCluster.Node next = cluster.leader();
        assertThat(next.node().leaderVersion()).isGreaterThan(version + 1);
        ElectionEvent.LeadershipAcquired acquired = next.events(ElectionEvent.LeadershipAcquired.class).get(
                next.events(ElectionEvent.LeadershipAcquired.class).size() - 1);
        // The backers voted one link delay before the decision.
        assertThat(acquired.at()).isAfterOrEqualTo(cluster.clock.instant()
                .minusNanos(cluster.clock.nanoTime() - decidedAt).minus(LINK).plus(cluster.config.ttlTimeout()));
    }
}

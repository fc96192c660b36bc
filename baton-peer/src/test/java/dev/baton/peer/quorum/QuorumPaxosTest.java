package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.peer.quorum.QuorumMessage.FormalProposal;
import dev.baton.peer.quorum.QuorumMessage.FormalVote;
import dev.baton.peer.quorum.QuorumMessage.LeaderStatusQuery;
import dev.baton.peer.quorum.QuorumMessage.LeaderStatusQueryResponse;
import dev.baton.peer.quorum.QuorumMessage.NewLeader;
import dev.baton.peer.quorum.QuorumMessage.PreProposal;
import dev.baton.peer.quorum.QuorumMessage.PreVote;
import dev.baton.peer.quorum.QuorumMessage.Refusal;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The election as Paxos, with one real node and its peers played by hand: persisted promises, ballots, counting of
 * votes, adoption of the highest accepted candidate, retries with a higher round.
 */
class QuorumPaxosTest {

    private static final Duration TTL_AND_A_BIT = Duration.ofMillis(1_100);

    private final SimCluster cluster = new SimCluster(31, 3, 3, QuorumConfig.fast(), LinkConditions.instant(), true);
    private final PeerAddress n1 = cluster.addresses.get(0);
    private final PeerAddress n2 = cluster.addresses.get(1);
    private final PeerAddress n3 = cluster.addresses.get(2);

    @Test
    void anAcceptorRestartedWithItsStateDoesNotVoteTwiceDifferently() {
        cluster.startWithState(1);
        FakePeer p2 = new FakePeer(cluster, n2);
        FakePeer p3 = new FakePeer(cluster, n3);
        cluster.advance(TTL_AND_A_BIT);
        Ballot first = new Ballot(5, 0, n2);
        p2.send(n1, new PreProposal(first, false));
        p2.send(n1, new FormalProposal(first, n2, false));
        cluster.advance(Duration.ofMillis(1));
        assertThat(p2.last(PreVote.class).accepted()).isTrue();
        assertThat(p2.last(FormalVote.class).accepted()).isTrue();

        cluster.restart(n1, true);
        cluster.advance(TTL_AND_A_BIT);
        p3.send(n1, new PreProposal(new Ballot(5, 1, n3), false));
        cluster.advance(Duration.ofMillis(1));
        PreVote promise = p3.last(PreVote.class);
        assertThat(promise.accepted()).isTrue();
        assertThat(promise.acceptedBallot()).as("it remembers what it accepted").isEqualTo(first);
        assertThat(promise.acceptedCandidate()).isEqualTo(n2);

        p3.send(n1, new FormalProposal(new Ballot(5, 0, n3), n3, false));
        p2.send(n1, new PreProposal(first, false));
        cluster.advance(Duration.ofMillis(1));
        FormalVote lower = p3.last(FormalVote.class);
        assertThat(lower.accepted()).as("a ballot below its promise").isFalse();
        assertThat(lower.refusal()).isEqualTo(Refusal.HIGHER_BALLOT);
        assertThat(lower.refusalValue()).isEqualTo(1);
        assertThat(p2.last(PreVote.class).accepted()).as("the same ballot again").isFalse();
        assertThat(cluster.node(n1).state.load()).hasValueSatisfying(s -> {
            assertThat(s.promised()).isEqualTo(new Ballot(5, 1, n3));
            assertThat(s.acceptedCandidate()).isEqualTo(n2);
        });
    }

    @Test
    void anAcceptorThatHeardItsLeaderWithinTtlRefusesToVote() {
        cluster.startWithState(1);
        FakePeer p2 = new FakePeer(cluster, n2);
        cluster.advance(Duration.ofMillis(500));
        p2.send(n1, new PreProposal(new Ballot(1, 0, n2), false));
        cluster.advance(Duration.ofMillis(1));

        PreVote vote = p2.last(PreVote.class);
        assertThat(vote.accepted()).isFalse();
        assertThat(vote.refusal()).isEqualTo(Refusal.LEADER_ALIVE);
    }

    @Test
    void aLateProposalForAnAlreadyDecidedVersionReelectsTheWinner() {
        // Exceptional case 1, second half: a member whose status query said "leader gone" proposes for the version
        // another member has already won. Paxos makes it adopt the winner: it cannot elect anyone else.
        cluster.startWithState(1);
        FakePeer p2 = new FakePeer(cluster, n2);
        FakePeer p3 = new FakePeer(cluster, n3);
        cluster.advanceUntil(Duration.ofSeconds(1), () -> !p2.received(LeaderStatusQuery.class).isEmpty());
        LeaderStatusQuery query = p2.last(LeaderStatusQuery.class);
        p2.send(n1, new LeaderStatusQueryResponse(query.queryId(), false, null, 0, 1));
        cluster.advanceUntil(Duration.ofSeconds(2), () -> !p2.received(PreProposal.class).isEmpty());

        Ballot ballot = p2.last(PreProposal.class).ballot();
        assertThat(ballot).isEqualTo(new Ballot(1, 0, n1));
        // p2 has promised a higher round to p3, which already had its candidate accepted.
        p2.send(n1, new PreVote(ballot, false, null, null, Refusal.HIGHER_BALLOT, 3, null));
        cluster.advanceUntil(Duration.ofSeconds(1), () -> p2.received(PreProposal.class).size() >= 2);
        Ballot retry = p2.last(PreProposal.class).ballot();
        assertThat(retry).as("retried with a round above the one it was told of").isEqualTo(new Ballot(1, 4, n1));

        p2.send(n1, new PreVote(retry, true, new Ballot(1, 2, n3), n3, Refusal.NONE, 0, null));
        cluster.advance(Duration.ofMillis(1));
        FormalProposal formal = p2.last(FormalProposal.class);
        assertThat(formal.ballot()).isEqualTo(retry);
        assertThat(formal.candidate()).as("the candidate of the highest accepted ballot").isEqualTo(n3);

        p2.send(n1, new FormalVote(retry, true, Refusal.NONE, 0, null));
        cluster.advance(Duration.ofMillis(1));
        assertThat(p3.last(NewLeader.class)).isEqualTo(new NewLeader(1, n3, QuorumMessage.NO_STAMP));
        assertThat(cluster.node(n1).node().currentLeader()).isEqualTo(n3);
    }

    @Test
    void eachVoterCountsOnceAndOnlyForTheBallotAskedAbout() {
        SimCluster five = new SimCluster(32, 5, 5, QuorumConfig.fast(), LinkConditions.instant(), true);
        five.startWithState(1);
        PeerAddress self = five.addresses.get(0);
        FakePeer p2 = new FakePeer(five, five.addresses.get(1));
        FakePeer p3 = new FakePeer(five, five.addresses.get(2));
        new FakePeer(five, five.addresses.get(3));
        new FakePeer(five, five.addresses.get(4));
        five.advanceUntil(Duration.ofSeconds(1), () -> !p2.received(LeaderStatusQuery.class).isEmpty());
        long queryId = p2.last(LeaderStatusQuery.class).queryId();
        p2.send(self, new LeaderStatusQueryResponse(queryId, false, null, 0, 1));
        p3.send(self, new LeaderStatusQueryResponse(queryId, false, null, 0, 1));
        five.advanceUntil(Duration.ofSeconds(2), () -> !p2.received(PreProposal.class).isEmpty());
        Ballot ballot = p2.last(PreProposal.class).ballot();

        p2.send(self, new PreVote(ballot, true, null, null, Refusal.NONE, 0, null));
        p2.send(self, new PreVote(ballot, true, null, null, Refusal.NONE, 0, null));
        Ballot other = new Ballot(ballot.version(), ballot.round() + 7, ballot.proposer());
        p3.send(self, new PreVote(other, true, null, null, Refusal.NONE, 0, null));
        five.advance(Duration.ofMillis(1));
        assertThat(p2.received(FormalProposal.class)).as("own vote + p2 once = 2 < M = 3").isEmpty();

        p3.send(self, new PreVote(ballot, true, null, null, Refusal.NONE, 0, null));
        five.advance(Duration.ofMillis(1));
        assertThat(p2.last(FormalProposal.class).candidate()).isEqualTo(self);
    }
}

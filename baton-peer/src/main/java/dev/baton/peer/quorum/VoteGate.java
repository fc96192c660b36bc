package dev.baton.peer.quorum;

import dev.baton.peer.quorum.Acceptor.Verdict;
import dev.baton.peer.quorum.QuorumMessage.BarrierAck;
import dev.baton.peer.quorum.QuorumMessage.BarrierUpdate;
import dev.baton.peer.quorum.QuorumMessage.FormalProposal;
import dev.baton.peer.quorum.QuorumMessage.FormalVote;
import dev.baton.peer.quorum.QuorumMessage.LeaderStatusQuery;
import dev.baton.peer.quorum.QuorumMessage.LeaderStatusQueryResponse;
import dev.baton.peer.quorum.QuorumMessage.PreProposal;
import dev.baton.peer.quorum.QuorumMessage.PreVote;
import dev.baton.peer.quorum.QuorumMessage.RecoveryQuery;
import dev.baton.peer.quorum.QuorumMessage.RecoveryResponse;
import dev.baton.peer.quorum.QuorumMessage.Refusal;
import dev.baton.peer.transport.PeerAddress;
import java.util.List;

/**
 * The voting side of a node: its {@link Acceptor} behind the node's own reasons not to vote (it knows the leader of
 * that version, or it still backs a leader it heard within ttlTimeout), the answers to status queries, and the
 * answers a recovering node needs. Each vote is saved through the node's effects driver before the reply that carries
 * it is sent. Confined to the node's scheduler.
 */
final class VoteGate {

    private final NodeContext ctx;
    private final KnownLeader known;
    private final Transitions node;
    private final long ttl;
    private final long heartbeatTimeout;
    // The instance of this node's last formal vote and when it was cast (ownVoteDelay).
    private long votedIn;
    private long votedAt;
    // A version this incarnation recorded as one it may lead when it accepted its own candidacy, or -1.
    private long candidacy = -1;

    VoteGate(NodeContext ctx, KnownLeader known, Transitions node) {
        this.ctx = ctx;
        this.known = known;
        this.node = node;
        this.ttl = ctx.config().ttlTimeout().toNanos();
        this.heartbeatTimeout = ctx.config().heartbeatTimeout().toNanos();
    }

    /** The version this incarnation recorded as one it may lead when it accepted its own candidacy, or -1. */
    long candidacy() {
        return candidacy;
    }

    void clearCandidacy() {
        candidacy = -1;
    }

    void onStatusQuery(PeerAddress from, LeaderStatusQuery query) {
        PeerAddress healthy = healthyLeader(heartbeatTimeout);
        ctx.send(from, new LeaderStatusQueryResponse(query.queryId(), healthy != null, healthy, known.version,
                ctx.acceptor().floor()));
    }

    void onPreProposal(PeerAddress from, PreProposal proposal) {
        Verdict verdict = localPreVote(proposal.ballot(), proposal.leaderResigned());
        ctx.send(from, new PreVote(proposal.ballot(), verdict.accepted(), verdict.acceptedBallot(),
                verdict.acceptedCandidate(), verdict.refusal(), verdict.value(), decidedLeaderFor(verdict)));
    }

    void onFormalProposal(PeerAddress from, FormalProposal proposal) {
        Verdict verdict = localFormalVote(proposal.ballot(), proposal.candidate(), proposal.leaderResigned());
        ctx.send(from, new FormalVote(proposal.ballot(), verdict.accepted(), verdict.refusal(), verdict.value(),
                decidedLeaderFor(verdict)));
    }

    void onRecoveryQuery(PeerAddress from, RecoveryQuery query) {
        ctx.send(from, new RecoveryResponse(query.queryId(), ctx.acceptor().highestVersion(),
                List.copyOf(ctx.electionTargets())));
    }

    void onBarrierUpdate(PeerAddress from, BarrierUpdate update) {
        ctx.acceptor().raiseHighest(update.version());
        ctx.send(from, new BarrierAck(update.queryId()));
    }

    /** The leader this node sees healthy (heard within {@code within}), itself if it leads, else {@code null}. */
    PeerAddress healthyLeader(long within) {
        if (node.leadingOrElect()) {
            return ctx.self();
        }
        if (node.phase() == QuorumNode.Phase.FOLLOWING && known.resignedVersion != known.version
                && ctx.clock().nanoTime() - known.contact < within) {
            return known.current;
        }
        return null;
    }

    Verdict localPreVote(Ballot ballot, boolean leaderResigned) {
        Refusal gate = gate(ballot.version(), leaderResigned);
        return ctx.acceptor().prePropose(ballot, gate, gateValue(gate));
    }

    Verdict localFormalVote(Ballot ballot, PeerAddress candidate, boolean leaderResigned) {
        Refusal gate = gate(ballot.version(), leaderResigned);
        boolean ownCandidacy = candidate.equals(ctx.self());
        long ledBefore = ctx.acceptor().lastLed();
        Verdict verdict = ctx.acceptor().formalPropose(ballot, candidate, ownCandidacy, gate, gateValue(gate));
        if (verdict.accepted()) {
            // The candidate counts this vote as an acknowledgement taken when it sent the proposal: from now on
            // this node backs it as a follower that echoed that stamp would (see ownVoteDelay).
            votedIn = ballot.version();
            votedAt = ctx.clock().nanoTime();
            if (ownCandidacy && ledBefore < ballot.version()) {
                // Recorded by this incarnation, not left by an earlier one that may have led it.
                candidacy = ballot.version();
            }
        }
        return verdict;
    }

    /**
     * This node's own reason not to vote in {@code version}, beyond the acceptor's: it knows the leader of that
     * version, or it still has (or is) a leader it heard within ttlTimeout. The second is the safety timing: every
     * acknowledgement a leader's validity rests on came from a node that will not vote for a successor until
     * ttlTimeout after it (see {@link LeaderDuties}). A node that promised in this instance already no longer backs
     * any older leader, so it is not asked again.
     */
    private Refusal gate(long version, boolean leaderResigned) {
        if (known.leader != null && known.version >= version) {
            return Refusal.DECIDED;
        }
        if (ctx.acceptor().promisedIn(version)) {
            return Refusal.NONE;
        }
        if (node.leadingOrElect()) {
            return Refusal.LEADER_ALIVE;
        }
        if (ownVoteDelay(version, leaderResigned) > 0) {
            return Refusal.LEADER_ALIVE;
        }
        return Refusal.NONE;
    }

    private long gateValue(Refusal gate) {
        return gate == Refusal.DECIDED ? known.version : 0;
    }

    private PeerAddress decidedLeaderFor(Verdict verdict) {
        return verdict.refusal() == Refusal.DECIDED ? known.leader : null;
    }

    /**
     * Nanoseconds until this node may vote in {@code version} as far as leader contact goes; 0 if it may now. Two
     * contacts count: the last acknowledgement from the leader it follows, and its last formal vote (the candidate it
     * voted for counts that vote towards its first majority, so for ttlTimeout this node backs it as it would back a
     * leader whose stamp it echoed). Neither counts once that leader (or candidate, for its version) resigned.
     */
    long ownVoteDelay(long version, boolean leaderResigned) {
        long now = ctx.clock().nanoTime();
        long delay = 0;
        boolean resigned = known.resignedVersion == known.version
                || (leaderResigned && known.version == version - 1);
        if (!resigned) {
            delay = known.contact + ttl - now;
        }
        boolean candidateResigned = known.resignedVersion == votedIn || (leaderResigned && votedIn == version - 1);
        if (votedIn > 0 && version > votedIn && !candidateResigned) {
            delay = Math.max(delay, votedAt + ttl - now);
        }
        return Math.max(0, delay);
    }
}

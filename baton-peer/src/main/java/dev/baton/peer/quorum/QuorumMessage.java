package dev.baton.peer.quorum;

import dev.baton.peer.MemberCard;
import dev.baton.peer.transport.PeerAddress;
import java.util.List;

/**
 * Every message of the quorum protocol (seed 003), as records; {@code JacksonMessageCodec.forSealed(QuorumMessage.class)}
 * puts them on the wire. The sender is the transport's {@code from}, never a field. Nullable fields are marked; a
 * version of 0 means "none known". See {@code docs/quorum.md} for the message table.
 */
public sealed interface QuorumMessage {

    /** The stamp value that means "no stamp". */
    long NO_STAMP = Long.MIN_VALUE;

    // ---- start-up and joining (NORMAL_JOINING_PROCESS, SEED_JOINING_PROCESS)

    /** "Who leads?", sent to the seeds. {@code version}: the highest version the asker has seen. */
    record LeaderQuery(long version) implements QuorumMessage {
    }

    /** The answer to a {@link LeaderQuery}: a leader the responder currently sees healthy, or {@code null}. */
    record LeaderResponse(PeerAddress leader, long version) implements QuorumMessage {
    }

    /** Asks the leader of {@code version} to admit the sender. Also sent again to update the sender's card. */
    record JoinClusterRequest(MemberCard card, long version) implements QuorumMessage {
    }

    /**
     * The leader's answer to a {@link JoinClusterRequest}. Refused: {@code reason} says why, and {@code leader}
     * (nullable) names the leader the refusing node knows of.
     */
    record JoinClusterResponse(boolean accepted, long version, PeerAddress leader, String reason)
            implements QuorumMessage {
    }

    /** One member's new status, broadcast by the leader of {@code version} after every change. */
    record MemberStatusUpdate(long version, MemberEntry member) implements QuorumMessage {
    }

    /** The leader's whole table (every state but removed) at {@code revision}: to newcomers and to stale members. */
    record ClusterAlignment(long version, long revision, List<MemberEntry> members) implements QuorumMessage {
    }

    /** A member leaving on purpose: the leader marks it leaving, then removed. */
    record LeaveCluster(long version) implements QuorumMessage {
    }

    /** From a relieved leader to its members: leave me and join the cluster again through the seeds. */
    record ReJoinCluster(long version) implements QuorumMessage {
    }

    // ---- keep-alives and check-quorum

    /**
     * Follower to leader every heartbeatInterval. {@code sentAt} is the follower's own clock (echoed back in the ack);
     * {@code echo} is the newest stamp the follower received from this leader ({@link #NO_STAMP} when none, or when
     * the follower has promised a newer election and no longer backs this leader); {@code viewRevision} is the newest
     * table revision the follower holds.
     */
    record LeaderKeepAlive(long version, long sentAt, long echo, long viewRevision) implements QuorumMessage {
    }

    /**
     * Leader to follower, only from a node that leads {@code version} (sending validation). {@code stamp} is the
     * leader's clock when it sent this; {@code validForNanos} how long its leadership is still valid from then (0
     * while it is not yet valid).
     */
    record LeaderKeepAliveAck(long version, long sentAtEcho, long stamp, long validForNanos) implements QuorumMessage {
    }

    /** Leader to every seed, every heartbeatInterval, against isolated islands. */
    record SeedKeepAlive(long version) implements QuorumMessage {
    }

    /** A seed's answer to {@link SeedKeepAlive}: the leader it sees (nullable) and that leader's version. */
    record SeedKeepAliveAck(long version, PeerAddress seedLeader, long seedLeaderVersion) implements QuorumMessage {
    }

    /**
     * From a seed that saw two leaders, to the loser (LEADER_CONFLICT_PROCESS): step down and rejoin. The receiver
     * acts only if it still leads {@code loserVersion} and {@code winner} beats it (larger version, then larger
     * address).
     */
    record LeaderRelieve(long loserVersion, PeerAddress winner, long winnerVersion) implements QuorumMessage {
    }

    /** A leader handing over on purpose: it has already stopped leading. {@code successor} should run at once. */
    record LeaderResign(long version, PeerAddress successor, boolean leaving) implements QuorumMessage {
    }

    // ---- indirect probing of a silent member

    /** Leader to a helper: probe {@code target} for me. */
    record ProbeRequest(long version, PeerAddress target, long probeId) implements QuorumMessage {
    }

    /** "Are you there?", to a probed member, from the leader or a helper. */
    record Probe(long probeId) implements QuorumMessage {
    }

    /** The probed member's answer. */
    record ProbeAck(long probeId) implements QuorumMessage {
    }

    /** Helper to leader: what probing {@code target} showed. */
    record ProbeReport(long version, PeerAddress target, long probeId, boolean reachable) implements QuorumMessage {
    }

    // ---- election

    /** "Is the leader of {@code version} healthy from where you are?" */
    record LeaderStatusQuery(long version, long queryId) implements QuorumMessage {
    }

    /**
     * The answer to a {@link LeaderStatusQuery}: whether the responder sees a healthy leader ({@code leader},
     * nullable), the version of the newest leader it knows, and the lowest version it may vote in ({@code floor}).
     */
    record LeaderStatusQueryResponse(long queryId, boolean healthy, PeerAddress leader, long leaderVersion, long floor)
            implements QuorumMessage {
    }

    /**
     * The pre-proposal: Paxos phase 1 for {@code ballot}. {@code leaderResigned}: the proposer was told by the leader
     * of {@code ballot.version() - 1} that it resigned.
     */
    record PreProposal(Ballot ballot, boolean leaderResigned) implements QuorumMessage {
    }

    /**
     * The pre-vote: a promise (accepted, with the acceptor's highest accepted formal ballot and its candidate, both
     * nullable) or a refusal (see {@link Refusal} for {@code refusalValue}; {@code knownLeader} nullable).
     */
    record PreVote(Ballot ballot, boolean accepted, Ballot acceptedBallot, PeerAddress acceptedCandidate,
            Refusal refusal, long refusalValue, PeerAddress knownLeader) implements QuorumMessage {
    }

    /** The formal proposal: Paxos phase 2, {@code candidate} for {@code ballot}. */
    record FormalProposal(Ballot ballot, PeerAddress candidate, boolean leaderResigned) implements QuorumMessage {
    }

    /** The formal vote: accepted, or a refusal as in {@link PreVote}. */
    record FormalVote(Ballot ballot, boolean accepted, Refusal refusal, long refusalValue, PeerAddress knownLeader)
            implements QuorumMessage {
    }

    /**
     * A decided leader: from the proposer that saw the majority ({@code stamp} {@link #NO_STAMP}), and from the new
     * leader itself to everyone (with a stamp, which counts as a keep-alive acknowledgement).
     */
    record NewLeader(long version, PeerAddress leader, long stamp) implements QuorumMessage {
    }

    // ---- recovery of a node that starts without saved state

    /** "What is the highest version you have seen?", from a node that starts without its saved state. */
    record RecoveryQuery(long queryId) implements QuorumMessage {
    }

    /** The answer to a {@link RecoveryQuery}, with the nodes the responder knows (to find more responders). */
    record RecoveryResponse(long queryId, long highestVersion, List<PeerAddress> knownNodes) implements QuorumMessage {
    }

    /** "Remember that versions up to {@code version} are used": the recovering node's barrier, kept by a majority. */
    record BarrierUpdate(long queryId, long version) implements QuorumMessage {
    }

    /** The barrier was saved. */
    record BarrierAck(long queryId) implements QuorumMessage {
    }

    /** Why an acceptor refused a proposal. */
    enum Refusal {
        /** No refusal: the vote is an acceptance. */
        NONE,
        /** It promised a higher ballot in this instance; {@code refusalValue} is that ballot's round. */
        HIGHER_BALLOT,
        /** It has moved to a newer instance; {@code refusalValue} is that instance's version. */
        NEWER_INSTANCE,
        /** It cannot vote below its floor (it restarted without saved state); {@code refusalValue} is the floor. */
        BELOW_FLOOR,
        /** It knows the leader of this version or a newer one; {@code knownLeader} and {@code refusalValue} say which. */
        DECIDED,
        /** It heard its leader within ttlTimeout, or it leads itself: no election now. */
        LEADER_ALIVE,
        /** It is still recovering after a start without saved state and may not vote yet. */
        RECOVERING
    }
}

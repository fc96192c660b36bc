package dev.baton.peer.quorum;

import dev.baton.peer.quorum.QuorumMessage.BarrierAck;
import dev.baton.peer.quorum.QuorumMessage.BarrierUpdate;
import dev.baton.peer.quorum.QuorumMessage.ClusterAlignment;
import dev.baton.peer.quorum.QuorumMessage.FormalProposal;
import dev.baton.peer.quorum.QuorumMessage.FormalVote;
import dev.baton.peer.quorum.QuorumMessage.JoinClusterRequest;
import dev.baton.peer.quorum.QuorumMessage.JoinClusterResponse;
import dev.baton.peer.quorum.QuorumMessage.LeaderKeepAlive;
import dev.baton.peer.quorum.QuorumMessage.LeaderKeepAliveAck;
import dev.baton.peer.quorum.QuorumMessage.LeaderQuery;
import dev.baton.peer.quorum.QuorumMessage.LeaderRelieve;
import dev.baton.peer.quorum.QuorumMessage.LeaderResign;
import dev.baton.peer.quorum.QuorumMessage.LeaderResponse;
import dev.baton.peer.quorum.QuorumMessage.LeaderStatusQuery;
import dev.baton.peer.quorum.QuorumMessage.LeaderStatusQueryResponse;
import dev.baton.peer.quorum.QuorumMessage.LeaveCluster;
import dev.baton.peer.quorum.QuorumMessage.MemberStatusUpdate;
import dev.baton.peer.quorum.QuorumMessage.NewLeader;
import dev.baton.peer.quorum.QuorumMessage.PreProposal;
import dev.baton.peer.quorum.QuorumMessage.PreVote;
import dev.baton.peer.quorum.QuorumMessage.Probe;
import dev.baton.peer.quorum.QuorumMessage.ProbeAck;
import dev.baton.peer.quorum.QuorumMessage.ProbeReport;
import dev.baton.peer.quorum.QuorumMessage.ProbeRequest;
import dev.baton.peer.quorum.QuorumMessage.ReJoinCluster;
import dev.baton.peer.quorum.QuorumMessage.RecoveryQuery;
import dev.baton.peer.quorum.QuorumMessage.RecoveryResponse;
import dev.baton.peer.quorum.QuorumMessage.SeedKeepAlive;
import dev.baton.peer.quorum.QuorumMessage.SeedKeepAliveAck;
import dev.baton.peer.transport.PeerAddress;

/**
 * Hands each incoming message to the part of the node that handles its type: the voting side ({@link VoteGate}),
 * the phases ({@link Seeking}, {@link Following}, the current {@link LeaderTerm}), the election process ({@link
 * Elections}), recovery, probes and seed conflicts. Every type of the sealed {@link QuorumMessage} has a branch, and
 * a test sends one of each; a type without a branch is a programming error and fails loudly rather than being
 * dropped. Confined to the node's scheduler.
 */
final class QuorumInbox {

    /** What changes under the inbox: the current term and the current recovery run. */
    interface Node {

        boolean leadingOrElect();

        /** The term this node leads (or was decided for), or {@code null}. */
        LeaderTerm leadingTerm();

        /** The recovery under way, or {@code null}. */
        Recovery recoveryRun();
    }

    private final NodeContext ctx;
    private final Node node;
    private final KnownLeader known;
    private final VoteGate votes;
    private final Elections elections;
    private final Seeking seeking;
    private final Following following;
    private final SeedConflicts seedConflicts;
    private final ProbeHelper probeHelper;
    private final long ttl;

    QuorumInbox(NodeContext ctx, Node node, KnownLeader known, VoteGate votes, Elections elections, Seeking seeking,
            Following following, SeedConflicts seedConflicts) {
        this.ctx = ctx;
        this.node = node;
        this.known = known;
        this.votes = votes;
        this.elections = elections;
        this.seeking = seeking;
        this.following = following;
        this.seedConflicts = seedConflicts;
        this.probeHelper = new ProbeHelper(ctx);
        this.ttl = ctx.config().ttlTimeout().toNanos();
    }

    /**
     * Hands {@code message} to the part that handles its type. Every type of the sealed {@link QuorumMessage} has a
     * branch (a test sends one of each); a type without one is a programming error and fails loudly.
     */
    void dispatch(PeerAddress from, QuorumMessage message) {
        if (message instanceof LeaderKeepAlive m) {
            // Only a node leading that version answers (sending validation); a keep-alive for a version this node
            // has not learned it leads is never taken as news of its own election: it may be a stale one from a
            // follower of an earlier incarnation of this node.
            if (node.leadingOrElect() && m.version() == known.version) {
                node.leadingTerm().duties().onKeepAlive(from, m);
            }
        } else if (message instanceof LeaderKeepAliveAck m) {
            following.onKeepAliveAck(from, m);
        } else if (message instanceof LeaderQuery) {
            ctx.send(from, new LeaderResponse(votes.healthyLeader(ttl), known.version));
        } else if (message instanceof LeaderResponse m) {
            seeking.onLeaderResponse(from, m);
        } else if (message instanceof JoinClusterRequest m) {
            if (node.leadingOrElect()) {
                node.leadingTerm().duties().onJoin(from, m.card());
            } else {
                ctx.send(from, new JoinClusterResponse(false, known.version, votes.healthyLeader(ttl),
                        "not the leader"));
            }
        } else if (message instanceof JoinClusterResponse m) {
            seeking.onJoinResponse(from, m);
        } else if (message instanceof MemberStatusUpdate m) {
            following.onMemberStatusUpdate(from, m, node.leadingTerm() != null);
        } else if (message instanceof ClusterAlignment m) {
            following.onClusterAlignment(from, m);
        } else if (message instanceof LeaveCluster m) {
            if (node.leadingTerm() != null && m.version() == node.leadingTerm().duties().version()) {
                node.leadingTerm().duties().onLeave(from);
            }
        } else if (message instanceof ReJoinCluster m) {
            following.onReJoin(from, m);
        } else if (message instanceof SeedKeepAlive m) {
            seedConflicts.onSeedKeepAlive(from, m, this::onLeaderRelieve);
        } else if (message instanceof SeedKeepAliveAck) {
            // The seed resolves a conflict itself (LeaderRelieve); nothing to do here.
            return;
        } else if (message instanceof LeaderRelieve m) {
            onLeaderRelieve(m);
        } else if (message instanceof LeaderResign m) {
            following.onLeaderResign(from, m);
        } else if (message instanceof ProbeRequest m) {
            if (following.follows(from, m.version())) {
                probeHelper.onRequest(from, m);
            }
        } else if (message instanceof Probe m) {
            ctx.send(from, new ProbeAck(m.probeId()));
        } else if (message instanceof ProbeAck m) {
            if (!probeHelper.onAck(from, m) && node.leadingTerm() != null) {
                node.leadingTerm().duties().onProbeResult(from, m.probeId(), true);
            }
        } else if (message instanceof ProbeReport m) {
            if (node.leadingTerm() != null && m.version() == node.leadingTerm().duties().version()) {
                node.leadingTerm().duties().onProbeResult(m.target(), m.probeId(), m.reachable());
            }
        } else if (message instanceof LeaderStatusQuery m) {
            votes.onStatusQuery(from, m);
        } else if (message instanceof LeaderStatusQueryResponse m) {
            if (elections.current() != null) {
                elections.current().onStatusResponse(from, m);
            }
        } else if (message instanceof PreProposal m) {
            votes.onPreProposal(from, m);
        } else if (message instanceof PreVote m) {
            if (elections.current() != null) {
                elections.current().onPreVote(from, m);
            }
        } else if (message instanceof FormalProposal m) {
            votes.onFormalProposal(from, m);
        } else if (message instanceof FormalVote m) {
            if (elections.current() != null) {
                elections.current().onFormalVote(from, m);
            }
        } else if (message instanceof NewLeader m) {
            elections.onNewLeader(from, m, following);
        } else if (message instanceof RecoveryQuery m) {
            votes.onRecoveryQuery(from, m);
        } else if (message instanceof RecoveryResponse m) {
            if (node.recoveryRun() != null) {
                node.recoveryRun().onResponse(from, m);
            }
        } else if (message instanceof BarrierUpdate m) {
            votes.onBarrierUpdate(from, m);
        } else if (message instanceof BarrierAck m) {
            if (node.recoveryRun() != null) {
                node.recoveryRun().onAck(from, m.queryId());
            }
        } else {
            throw new IllegalStateException("no handler for quorum message type " + message.getClass().getName());
        }
    }

    /** A relief of this node as leader, from a seed or its own seed role. */
    void onLeaderRelieve(LeaderRelieve relieve) {
        if (node.leadingOrElect()) {
            node.leadingTerm().onRelieve(relieve);
        }
    }
}

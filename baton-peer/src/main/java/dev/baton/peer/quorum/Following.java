package dev.baton.peer.quorum;

import static dev.baton.peer.quorum.QuorumMessage.NO_STAMP;

import dev.baton.core.MemberState;
import dev.baton.peer.quorum.QuorumMessage.ClusterAlignment;
import dev.baton.peer.quorum.QuorumMessage.JoinClusterRequest;
import dev.baton.peer.quorum.QuorumMessage.LeaderKeepAlive;
import dev.baton.peer.quorum.QuorumMessage.LeaderKeepAliveAck;
import dev.baton.peer.quorum.QuorumMessage.LeaderResign;
import dev.baton.peer.quorum.QuorumMessage.MemberStatusUpdate;
import dev.baton.peer.quorum.QuorumMessage.ReJoinCluster;
import dev.baton.peer.transport.PeerAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code FOLLOWING} phase: keep-alives to the leader with the newest stamp echoed (check-quorum), the leader's
 * acknowledgements and how long they say it stays valid, the leader's table updates (receiving validation: only from
 * the leader followed or joined, for its version), and the leader's going away (silence for ttlTimeout, a
 * resignation, an order to rejoin). Confined to the node's scheduler.
 */
final class Following {

    private static final Logger log = LoggerFactory.getLogger(Following.class);

    private final NodeContext ctx;
    private final KnownLeader known;
    private final Transitions node;
    private final Elections elections;
    private final Seeking seeking;
    private final long ttl;

    Following(NodeContext ctx, KnownLeader known, Transitions node, Elections elections, Seeking seeking) {
        this.ctx = ctx;
        this.known = known;
        this.node = node;
        this.elections = elections;
        this.seeking = seeking;
        this.ttl = ctx.config().ttlTimeout().toNanos();
    }

    /**
     * Follows the known leader. A node that learned of the leader from an election (not by joining) also sends its
     * card: the leader may have admitted it from a keep-alive alone, without knowing its identifier or address.
     */
    void become(boolean joined) {
        node.enterPhase(QuorumNode.Phase.FOLLOWING);
        if (known.view.version() != known.version) {
            known.view = known.view.carriedTo(known.version);
        }
        // Until the leader's table arrives (one round trip), this node knows at least its leader: should that leader
        // die within it and this node be elected, its table must hold the dead leader, to be found silent and removed.
        known.view.assumeLeader(known.leader);
        known.wasMember = true;
        node.setCurrent(known.leader);
        node.closeRound(false);
        sendKeepAlive();
        if (!joined) {
            ctx.send(known.current, new JoinClusterRequest(node.card(), known.version));
        }
    }

    /** Every heartbeatInterval. */
    void tick(long now) {
        sendKeepAlive();
        if (known.resignedVersion == known.version || now - known.contact >= ttl) {
            // Seed 003: no ack for ttlTimeout, so reset the local leader and start the election process.
            loseLeader();
        }
    }

    private void sendKeepAlive() {
        // A node that promised a newer election no longer backs this leader: no echo, so it is not counted.
        long supported = ctx.acceptor().instance() > known.version ? NO_STAMP : known.echo;
        ctx.send(known.current, new LeaderKeepAlive(known.version, ctx.clock().nanoTime(), supported,
                known.view.revision()));
    }

    /** The leader followed announced itself again with a stamp: it is alive, echo the stamp at once. */
    void stamped(long stamp) {
        known.contact = ctx.clock().nanoTime();
        known.lastSeen = known.contact;
        if (known.echo == NO_STAMP || stamp - known.echo > 0) {
            known.echo = stamp;
        }
        sendKeepAlive();
    }

    void onKeepAliveAck(PeerAddress from, LeaderKeepAliveAck ack) {
        long now = ctx.clock().nanoTime();
        if (node.phase() != QuorumNode.Phase.FOLLOWING || !from.equals(known.current) || ack.version() != known.version
                || now - ack.sentAtEcho() < 0) {
            return;
        }
        boolean first = known.echo == NO_STAMP;
        known.contact = now;
        known.lastSeen = now;
        if (known.echo == NO_STAMP || ack.stamp() - known.echo > 0) {
            known.echo = ack.stamp();
        }
        if (ack.validForNanos() > 0) {
            // The ack was sent after our keep-alive, so the leader is valid at least until our send time plus what
            // it reported; the drift allowance keeps the window inside the leader's own deadline.
            long until = ack.sentAtEcho() + (long) (ack.validForNanos() * (1 - ctx.config().maxClockDrift()));
            if (!known.recognising || until - known.recognisedUntil > 0) {
                known.recognisedUntil = until;
            }
            known.recognising = true;
        }
        if (first) {
            // Echo the first stamp at once: the new leader needs a majority of echoes to become valid.
            sendKeepAlive();
        }
    }

    private void loseLeader() {
        log.debug("{}: leader {} of version {} is gone", ctx.self(), known.current, known.version);
        node.seek(true);
        node.openRound();
        if (seeking.mayElect() && elections.allowedNow()) {
            node.startElection(0);
        }
    }

    /** A table update; {@code leading} if this node has a table of its own (it ignores others'). */
    void onMemberStatusUpdate(PeerAddress from, MemberStatusUpdate update, boolean leading) {
        if (leading || !followsForUpdates(from, update.version())) {
            return;
        }
        MemberEntry entry = update.member();
        if (entry.address().equals(ctx.self()) && entry.state() == MemberState.REMOVED) {
            // The leader no longer counts this node as a member; act only if we still follow that leader.
            if (node.phase() == QuorumNode.Phase.FOLLOWING) {
                node.join(known.current, known.version);
            }
            return;
        }
        known.view.apply(entry);
    }

    void onClusterAlignment(PeerAddress from, ClusterAlignment alignment) {
        if (followsForUpdates(from, alignment.version())) {
            known.view.align(alignment.revision(), alignment.members());
        }
    }

    /** Receiving validation for table updates: from the leader this node follows or is joining, same version. */
    private boolean followsForUpdates(PeerAddress from, long version) {
        if (node.phase() == QuorumNode.Phase.FOLLOWING) {
            return from.equals(known.current) && version == known.version;
        }
        return node.phase() == QuorumNode.Phase.JOINING && from.equals(known.joinTarget)
                && version == known.view.version();
    }

    void onReJoin(PeerAddress from, ReJoinCluster rejoin) {
        if (followsOrJoins(from) && rejoin.version() == known.version) {
            node.seek(true);
        }
    }

    private boolean followsOrJoins(PeerAddress from) {
        return (node.phase() == QuorumNode.Phase.FOLLOWING && from.equals(known.current))
                || (node.phase() == QuorumNode.Phase.JOINING && from.equals(known.joinTarget));
    }

    void onLeaderResign(PeerAddress from, LeaderResign resign) {
        if (!from.equals(known.leader) || resign.version() != known.version) {
            return;
        }
        known.resignedVersion = resign.version();
        if (resign.leaving()) {
            known.view.remove(from);
        }
        if (followsOrJoins(from)) {
            node.seek(true);
            node.openRound();
        }
        if (ctx.self().equals(resign.successor())) {
            node.startElection(resign.version());
        } else {
            // Give the named successor the first go.
            elections.notBefore(ctx.clock().nanoTime() + ctx.config().heartbeatTimeout().toNanos());
        }
    }

    /** Whether this node follows {@code leader} in {@code version} (a probe request must come from it). */
    boolean follows(PeerAddress leader, long version) {
        return node.phase() == QuorumNode.Phase.FOLLOWING && leader.equals(known.current) && version == known.version;
    }
}

package dev.baton.peer.quorum;

import dev.baton.peer.quorum.QuorumMessage.LeaderRelieve;
import dev.baton.peer.quorum.QuorumMessage.SeedKeepAlive;
import dev.baton.peer.quorum.QuorumMessage.SeedKeepAliveAck;
import dev.baton.peer.transport.PeerAddress;
import java.util.function.Consumer;

/**
 * Seed 003's island detection on the receiving seed: a leader's {@link SeedKeepAlive} tells a seed which leader the
 * sender's island follows; when it is not the seed's own, the seed resolves the conflict (LEADER_CONFLICT_PROCESS: the
 * larger version wins, then the larger address) by relieving the loser. Confined to the node's scheduler.
 */
final class SeedConflicts {

    private final NodeContext ctx;
    private final KnownLeader known;
    private final Transitions node;

    SeedConflicts(NodeContext ctx, KnownLeader known, Transitions node) {
        this.ctx = ctx;
        this.known = known;
        this.node = node;
    }

    /** Whether leader {@code a} of {@code versionA} beats {@code b} of {@code versionB}. */
    static boolean beats(long versionA, PeerAddress a, long versionB, PeerAddress b) {
        return versionA != versionB ? versionA > versionB : a.compareTo(b) > 0;
    }

    /**
     * Answers with this node's leader; joins the sender if it has none, and relieves the loser of a conflict. {@code
     * relieveSelf} handles a relief of this node itself (it leads and lost).
     */
    void onSeedKeepAlive(PeerAddress from, SeedKeepAlive keepAlive, Consumer<LeaderRelieve> relieveSelf) {
        PeerAddress mine = node.leadingOrElect() ? ctx.self()
                : node.phase() == QuorumNode.Phase.FOLLOWING ? known.current : null;
        long myVersion = mine == null ? 0 : known.version;
        ctx.send(from, new SeedKeepAliveAck(keepAlive.version(), mine, myVersion));
        if (mine == null) {
            if (node.phase() == QuorumNode.Phase.SEEKING && keepAlive.version() >= known.version) {
                node.join(from, keepAlive.version());
            }
            return;
        }
        if (mine.equals(from) && myVersion == keepAlive.version()) {
            return;
        }
        boolean senderWins = beats(keepAlive.version(), from, myVersion, mine);
        PeerAddress loser = senderWins ? mine : from;
        long loserVersion = senderWins ? myVersion : keepAlive.version();
        PeerAddress winner = senderWins ? from : mine;
        long winnerVersion = senderWins ? keepAlive.version() : myVersion;
        LeaderRelieve relieve = new LeaderRelieve(loserVersion, winner, winnerVersion);
        if (loser.equals(ctx.self())) {
            relieveSelf.accept(relieve);
        } else {
            ctx.send(loser, relieve);
            if (senderWins && node.phase() == QuorumNode.Phase.FOLLOWING) {
                node.join(winner, winnerVersion);
            }
        }
    }
}

package dev.baton.peer.quorum;

import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.peer.MemberCard;
import dev.baton.peer.internal.PeerMembership;
import dev.baton.peer.transport.PeerAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a quorum cluster's {@link dev.baton.core.Membership} shows: the members as the leader's table has them (on the
 * leader its own table, on a follower the copy its leader broadcast). A node's id is its peer address
 * ({@code host:port}); the role is {@link Role#LEADER} for the leader this node follows. Registration is the
 * protocol's own ({@link PeerMembership}).
 */
final class QuorumMembership implements PeerMembership.Source {

    private final QuorumNode node;

    QuorumMembership(QuorumNode node) {
        this.node = node;
    }

    /** The core view of a member entry; {@code leader} gets the leader role. */
    static NodeInfo nodeInfo(MemberEntry entry, PeerAddress leader) {
        MemberCard card = entry.card();
        return new NodeInfo(entry.address().format(), card.identifier(), card.apiAddress(),
                entry.address().equals(leader) ? Role.LEADER : Role.FOLLOWER, card.capabilities(), card.metadata(),
                entry.joinedAtMillis() == 0 ? null : Instant.ofEpochMilli(entry.joinedAtMillis()),
                entry.lastSeenMillis() == 0 ? null : Instant.ofEpochMilli(entry.lastSeenMillis()));
    }

    @Override
    public NodeInfo self() {
        MemberCard card = node.card();
        Role role = node.output().leadership() != null ? Role.LEADER : Role.FOLLOWER;
        return new NodeInfo(node.self().format(), card.identifier(), card.apiAddress(), role, card.capabilities(),
                card.metadata(), null, null);
    }

    @Override
    public List<NodeInfo> members() {
        PeerAddress leader = node.currentLeader();
        List<NodeInfo> result = new ArrayList<>();
        for (MemberEntry entry : node.members()) {
            result.add(nodeInfo(entry, leader));
        }
        return result;
    }

    @Override
    public void updateMetadata(Map<String, String> metadata) {
        MemberCard card = node.card();
        node.updateCard(new MemberCard(card.identifier(), card.apiAddress(), card.capabilities(), metadata));
    }
}

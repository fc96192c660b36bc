package dev.baton.peer.quorum;

import dev.baton.core.MemberState;
import dev.baton.peer.MemberCard;
import dev.baton.peer.transport.PeerAddress;
import java.util.Objects;

/**
 * One member as the leader records it and broadcasts it (seed 003's member status).
 *
 * @param address        the member's peer address, which is its node id
 * @param card           what the member said about itself when it joined
 * @param state          joining, active, unreachable, leaving or removed
 * @param revision       the leader's table revision at this entry's last change: a member applies an update only if it
 *                       is newer than what it has (exceptional case 2, out-of-order updates)
 * @param joinedAtMillis when the leader admitted it, by the leader's wall clock (display only)
 * @param lastSeenMillis when the leader last heard from it, by the leader's wall clock (display only)
 */
public record MemberEntry(PeerAddress address, MemberCard card, MemberState state, long revision, long joinedAtMillis,
        long lastSeenMillis) {

    public MemberEntry {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(card, "card");
        Objects.requireNonNull(state, "state");
    }

    MemberEntry withState(MemberState newState, long newRevision) {
        return new MemberEntry(address, card, newState, newRevision, joinedAtMillis, lastSeenMillis);
    }
}

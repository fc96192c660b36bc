package dev.baton.core;

import java.util.Objects;

/**
 * One member of a group as its election sees it now.
 *
 * @param node  the member's registry entry (role derived from the lease, last seen stamped by the store)
 * @param state {@link MemberState#ACTIVE} while it heartbeats on time, {@link MemberState#UNREACHABLE} once it has
 *              missed two heartbeats (it is removed when its entry expires)
 */
public record MemberStatus(NodeInfo node, MemberState state) {

    public MemberStatus {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(state, "state");
    }
}

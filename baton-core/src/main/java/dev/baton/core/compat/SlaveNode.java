package dev.baton.core.compat;

import dev.baton.core.NodeInfo;
import java.time.Instant;
import java.util.Map;

/**
 * Seed 000's {@code SlaveNode}: a follower as the master sees it.
 *
 * @param nodeId       the follower's node id
 * @param identifier   its human-readable identifier
 * @param registeredAt first registration, store time
 * @param lastSeen     last heartbeat, store time
 * @param metadata     the follower's metadata
 */
public record SlaveNode(String nodeId, String identifier, Instant registeredAt, Instant lastSeen,
        Map<String, String> metadata) {

    static SlaveNode of(NodeInfo node) {
        return new SlaveNode(node.id(), node.identifier(), node.registeredAt(), node.lastSeen(), node.metadata());
    }
}

package dev.baton.core.compat;

import dev.baton.core.Capabilities;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import java.time.Instant;

/**
 * Seed 000's {@code ProcessInfo}: one process in the registry.
 *
 * @param processId    unique process id (a UUID by default)
 * @param nodeId       the node id; the same as {@code processId} in seed 000
 * @param role         {@link Role#LEADER} for {@code 'master'}, {@link Role#FOLLOWER} for {@code 'slave'}
 * @param lastSeen     last heartbeat, store time; {@code null} before the process was stored
 * @param capabilities what the process offers
 */
public record ProcessInfo(String processId, String nodeId, Role role, Instant lastSeen, Capabilities capabilities) {

    /** The pub/sub channel of this process: {@code worker:slave:<processId>}. */
    public String channelName() {
        return "worker:slave:" + processId;
    }

    static ProcessInfo of(NodeInfo node) {
        return new ProcessInfo(node.id(), node.id(), node.role(), node.lastSeen(), node.capabilities());
    }

    NodeInfo toNode(String identifier) {
        return NodeInfo.of(processId, identifier).withRole(role).withCapabilities(capabilities);
    }
}

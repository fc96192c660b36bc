package dev.baton.core.store;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of a group's {@link EventLogStore event log}.
 *
 * @param id     increases in append order within the group
 * @param nodeId the node that recorded it
 * @param type   what happened, in the seed's words: {@code leader_elected}, {@code leader_lost}, {@code node_joined},
 *               {@code node_left}, {@code election_started}, {@code cluster_degraded}, {@code cluster_recovered}
 * @param data   details, e.g. {@code term} and {@code reason}
 * @param at     when the store recorded it, by the store's clock
 */
public record ClusterEvent(long id, String nodeId, String type, Map<String, String> data, Instant at) {

    public ClusterEvent {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(type, "type");
        data = Map.copyOf(data);
        Objects.requireNonNull(at, "at");
    }
}

package dev.baton.peer;

import dev.baton.core.Capabilities;
import java.util.Map;
import java.util.Objects;

/**
 * What a node of a serverless protocol (quorum or bully) tells its group about itself when it joins: the parts of
 * {@link dev.baton.core.NodeInfo} that are not derived from the protocol (the id is the node's peer address, the role
 * follows from the leader, the times are stamped by the leader).
 *
 * @param identifier   human-readable name, e.g. {@code orders-api}
 * @param apiAddress   where the node serves its API, or {@code null}
 * @param capabilities what the node offers
 * @param metadata     free-form string metadata
 */
public record MemberCard(String identifier, String apiAddress, Capabilities capabilities, Map<String, String> metadata) {

    public MemberCard {
        if (identifier == null || identifier.isBlank()) {
            throw new IllegalArgumentException("identifier must not be blank");
        }
        Objects.requireNonNull(capabilities, "capabilities");
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    }
}

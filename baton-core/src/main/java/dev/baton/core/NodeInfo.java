package dev.baton.core;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A member of a group as the registry knows it (seed 000's {@code ProcessInfo} and {@code SlaveNode} in one).
 *
 * <p>{@code registeredAt} and {@code lastSeen} are stamped by the store's clock when the entry is written; they are
 * {@code null} on a value that has not been stored yet. {@code role} in values read back from a store is derived from
 * the current lease, so at most one member reads as {@link Role#LEADER}.
 *
 * @param id           unique id of the process within its group (a UUID unless chosen)
 * @param identifier   human-readable name, e.g. {@code orders-api}
 * @param apiAddress   where the process serves its API, or {@code null}
 * @param role         the member's role
 * @param capabilities what the process offers
 * @param metadata     free-form string metadata
 * @param registeredAt first registration, store time, or {@code null}
 * @param lastSeen     last heartbeat, store time, or {@code null}
 */
public record NodeInfo(
        String id,
        String identifier,
        String apiAddress,
        Role role,
        Capabilities capabilities,
        Map<String, String> metadata,
        Instant registeredAt,
        Instant lastSeen) {

    public NodeInfo {
        requireText(id, "id");
        requireText(identifier, "identifier");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(capabilities, "capabilities");
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    }

    /** A fresh follower with a random UUID id and default capabilities. */
    public static NodeInfo create(String identifier) {
        return of(UUID.randomUUID().toString(), identifier);
    }

    /** A follower with the given id and default capabilities. */
    public static NodeInfo of(String id, String identifier) {
        return new NodeInfo(id, identifier, null, Role.FOLLOWER, Capabilities.DEFAULT, Map.of(), null, null);
    }

    /** The API address, if the process has one. */
    public Optional<String> api() {
        return Optional.ofNullable(apiAddress);
    }

    /** The pub/sub channel results for this process are routed to (seed 000: {@code worker:slave:<processId>}). */
    public String channelName() {
        return "worker:slave:" + id;
    }

    public NodeInfo withRole(Role newRole) {
        return new NodeInfo(id, identifier, apiAddress, newRole, capabilities, metadata, registeredAt, lastSeen);
    }

    public NodeInfo withMetadata(Map<String, String> newMetadata) {
        return new NodeInfo(id, identifier, apiAddress, role, capabilities, newMetadata, registeredAt, lastSeen);
    }

    public NodeInfo withCapabilities(Capabilities newCapabilities) {
        return new NodeInfo(id, identifier, apiAddress, role, newCapabilities, metadata, registeredAt, lastSeen);
    }

    public NodeInfo withApiAddress(String newApiAddress) {
        return new NodeInfo(id, identifier, newApiAddress, role, capabilities, metadata, registeredAt, lastSeen);
    }

    /** This value with the store's timestamps. */
    public NodeInfo withTimes(Instant newRegisteredAt, Instant newLastSeen) {
        return new NodeInfo(id, identifier, apiAddress, role, capabilities, metadata, newRegisteredAt, newLastSeen);
    }

    private static void requireText(String value, String field) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " must not be blank");
        }
    }
}

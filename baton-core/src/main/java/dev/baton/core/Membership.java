package dev.baton.core;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The group's process registry (seed 000's process registry and slave management).
 *
 * <p>An election registers its own process when it starts, renews the entry every
 * {@link ElectionConfig#processHeartbeatInterval()} and removes it on close; other processes may be registered too.
 * Entries expire after {@link ElectionConfig#processTtl()} without a heartbeat, by the store's clock. Roles read back
 * are derived from the current lease.
 */
public interface Membership {

    /** This process's own entry as it will next be written. */
    NodeInfo self();

    /** Replaces this process's metadata; written to the registry at once and on every heartbeat after. */
    CompletableFuture<Void> setMetadata(Map<String, String> metadata);

    /** Registers (or replaces) a process entry with the registry TTL. */
    CompletableFuture<Void> register(NodeInfo node);

    /** Renews a process entry's TTL; false if it has expired or was never registered. One store round trip. */
    CompletableFuture<Boolean> heartbeat(String nodeId);

    /** Removes a process entry; false if there was none. */
    CompletableFuture<Boolean> unregister(String nodeId);

    /** Every live process, ordered by id. */
    CompletableFuture<List<NodeInfo>> members();

    /** One live process. */
    CompletableFuture<Optional<NodeInfo>> member(String nodeId);

    /** The leader's process info, if there is a leader. */
    CompletableFuture<Optional<NodeInfo>> leaderInfo();

    /** Live processes with the given role. */
    default CompletableFuture<List<NodeInfo>> byRole(Role role) {
        return members().thenApply(all -> all.stream().filter(n -> n.role() == role).toList());
    }

    /** Live followers (seed 000's slaves). */
    default CompletableFuture<List<NodeInfo>> followers() {
        return byRole(Role.FOLLOWER);
    }
}

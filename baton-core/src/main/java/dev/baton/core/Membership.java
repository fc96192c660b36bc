package dev.baton.core;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The group's members as this node sees them: what every backend offers. On a store backend the members are the
 * entries of the store's process registry (a {@link Registry}, where other processes can be registered too); on a
 * serverless backend they are the nodes that run the protocol, as this node's member table has them.
 *
 * <p>An election adds its own process when it starts and removes it on close. Roles read back are the backend's:
 * the lease holder (or the protocol's leader) reads as leader, everyone else as follower.
 */
public interface Membership {

    /** This process's own entry as it will next be written. */
    NodeInfo self();

    /**
     * Replaces this process's metadata. A store election writes it to the registry at once and with every heartbeat
     * after; a serverless election tells the group.
     */
    CompletableFuture<Void> setMetadata(Map<String, String> metadata);

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

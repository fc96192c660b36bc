package dev.baton.core;

import java.util.concurrent.CompletableFuture;

/**
 * The group's process registry in a shared store (seed 000's process registry and slave management): the
 * {@link Membership} of a {@link StoreElection}, where any process can be registered, not only those that run an
 * election.
 *
 * <p>The election registers its own process when it starts, renews the entry every
 * {@link ElectionConfig#processHeartbeatInterval()} and removes it on close. Entries expire after
 * {@link ElectionConfig#processTtl()} without a heartbeat, by the store's clock.
 */
public interface Registry extends Membership {

    /** Registers (or replaces) a process entry with the registry TTL. */
    CompletableFuture<Void> register(NodeInfo node);

    /** Renews a process entry's TTL; false if it has expired or was never registered. One store round trip. */
    CompletableFuture<Boolean> heartbeat(String nodeId);

    /** Removes a process entry; false if there was none. */
    CompletableFuture<Boolean> unregister(String nodeId);
}

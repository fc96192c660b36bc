package dev.baton.core.store;

import dev.baton.core.NodeInfo;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The process registry half of the store contract: entries with a per-entry TTL measured by the store's clock
 * (seed 000's process registry, 45 s by default).
 *
 * <p>Values read back carry {@code registeredAt} / {@code lastSeen} stamped by the store, and a role derived from
 * the group's current lease: the lease holder reads as leader, everyone else as follower.
 */
public interface RegistryStore {

    /** Adds or replaces {@code node}'s entry, alive for {@code ttl}, and publishes a registered notice if new. */
    CompletableFuture<Void> register(String group, NodeInfo node, Duration ttl);

    /** Renews {@code nodeId}'s entry for {@code ttl} in one round trip; false if there is no live entry. */
    CompletableFuture<Boolean> heartbeat(String group, String nodeId, Duration ttl);

    /** Removes {@code nodeId}'s entry and publishes an unregistered notice; false if there was none. */
    CompletableFuture<Boolean> unregister(String group, String nodeId);

    /** All live entries, ordered by id. Expired entries are never returned, swept or not. */
    CompletableFuture<List<NodeInfo>> members(String group);

    /** One live entry. */
    CompletableFuture<Optional<NodeInfo>> member(String group, String nodeId);

    /** The current lease holder's process info (seed 000's {@code master_process}), if a lease is held. */
    CompletableFuture<Optional<NodeInfo>> leaderInfo(String group);

    /** Deletes expired entries and returns their ids. */
    CompletableFuture<List<String>> sweepExpired(String group);

    /** Delivers registration notices for {@code group} until closed. */
    Subscription watchMembers(String group, Consumer<MemberNotice> listener);
}

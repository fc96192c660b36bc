package dev.baton.redis.internal;

import static dev.baton.redis.internal.Replies.utf8;

import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process registry of the Redis store (seed 000's {@code processes} hash). Per-entry TTL needs
 * {@code HSETEX}/{@code HEXPIRE} (Redis 7.4+), so each entry's expiry lives in a sorted set beside the hash, scored
 * by Redis {@code TIME} in milliseconds; every read filters by that score, so an expired entry is never returned
 * whether or not it has been swept.
 *
 * <p>Roles read back are derived from the group's current {@code master} key, never trusted from the entry. An entry
 * whose JSON cannot be read is skipped with a warning rather than failing the listing.
 */
public final class RedisRegistry {

    private static final Logger log = LoggerFactory.getLogger(RedisRegistry.class);

    private final ScriptRunner scripts;
    private final RedisClusterAsyncCommands<String, byte[]> commands;
    private final NodeInfoCodec codec;
    private final String keyPrefix;
    private final StoreFailures failures;

    public RedisRegistry(ScriptRunner scripts, RedisClusterAsyncCommands<String, byte[]> commands, NodeInfoCodec codec,
            String keyPrefix, StoreFailures failures) {
        this.scripts = scripts;
        this.commands = commands;
        this.codec = codec;
        this.keyPrefix = keyPrefix;
        this.failures = failures;
    }

    /** See {@link dev.baton.core.store.RegistryStore#register}. */
    public CompletableFuture<Void> register(String group, NodeInfo node, Duration ttl) {
        return failures.guard("register " + node.id(), () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<Long>run(Scripts.REGISTER, ScriptOutputType.INTEGER,
                    new String[] {k.processes(), k.processesExpiry(), k.master()},
                    utf8(node.id()), utf8(RedisLeases.millis(ttl)), codec.encode(node), utf8(k.membersChannel()))
                    .thenApply(added -> null);
        });
    }

    /** See {@link dev.baton.core.store.RegistryStore#heartbeat}: one script, one round trip. */
    public CompletableFuture<Boolean> heartbeat(String group, String nodeId, Duration ttl) {
        return failures.guard("heartbeat " + nodeId, () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<Long>run(Scripts.HEARTBEAT, ScriptOutputType.INTEGER,
                    new String[] {k.processes(), k.processesExpiry(), k.master()},
                    utf8(nodeId), utf8(RedisLeases.millis(ttl)))
                    .thenApply(renewed -> renewed == 1L);
        });
    }

    /** See {@link dev.baton.core.store.RegistryStore#unregister}. */
    public CompletableFuture<Boolean> unregister(String group, String nodeId) {
        return failures.guard("unregister " + nodeId, () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<Long>run(Scripts.UNREGISTER, ScriptOutputType.INTEGER,
                    new String[] {k.processes(), k.processesExpiry()}, utf8(nodeId), utf8(k.membersChannel()))
                    .thenApply(removed -> removed == 1L);
        });
    }

    /**
     * See {@link dev.baton.core.store.RegistryStore#members}. Two commands pipelined on one connection, so Redis runs
     * them back to back: {@code HGETALL} of the hash, then {@code members.lua} for the ids expired by then and the
     * lease holder.
     */
    public CompletableFuture<List<NodeInfo>> members(String group) {
        return failures.guard("list members", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            CompletableFuture<Map<String, byte[]>> entries = commands.hgetall(k.processes()).toCompletableFuture();
            CompletableFuture<List<Object>> meta = scripts.run(Scripts.MEMBERS, ScriptOutputType.MULTI,
                    new String[] {k.processesExpiry(), k.master()});
            return entries.thenCombine(meta, (all, reply) -> liveMembers(group, all, reply));
        });
    }

    /** See {@link dev.baton.core.store.RegistryStore#member}. */
    public CompletableFuture<Optional<NodeInfo>> member(String group, String nodeId) {
        return failures.guard("read member " + nodeId, () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<List<Object>>run(Scripts.MEMBER, ScriptOutputType.MULTI,
                    new String[] {k.processes(), k.processesExpiry(), k.master()}, utf8(nodeId))
                    .thenApply(reply -> reply.isEmpty()
                            ? Optional.<NodeInfo>empty()
                            : decode(group, nodeId, reply.get(0), masterOf(reply.get(1))));
        });
    }

    /** See {@link dev.baton.core.store.RegistryStore#leaderInfo}: seed 000's {@code master_process}. */
    public CompletableFuture<Optional<NodeInfo>> leaderInfo(String group) {
        return failures.guard("read leader info", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return commands.get(k.masterProcess()).thenApply(json -> json == null
                    ? Optional.<NodeInfo>empty()
                    : decodeQuietly(group, "master_process", json).map(node -> node.withRole(Role.LEADER)));
        });
    }

    /** See {@link dev.baton.core.store.RegistryStore#sweepExpired}. */
    public CompletableFuture<List<String>> sweepExpired(String group) {
        return failures.guard("sweep expired members", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<List<Object>>run(Scripts.SWEEP, ScriptOutputType.MULTI,
                    new String[] {k.processes(), k.processesExpiry()})
                    .thenApply(ids -> ids.stream().map(Replies::text).toList());
        });
    }

    private List<NodeInfo> liveMembers(String group, Map<String, byte[]> entries, List<Object> meta) {
        String master = masterOf(meta.get(0));
        Set<String> expired = new HashSet<>();
        for (Object id : Replies.list(meta.get(1))) {
            expired.add(Replies.text(id));
        }
        List<NodeInfo> live = new ArrayList<>(entries.size());
        entries.forEach((id, json) -> {
            if (!expired.contains(id)) {
                decode(group, id, json, master).ifPresent(live::add);
            }
        });
        live.sort(Comparator.comparing(NodeInfo::id));
        return live;
    }

    private Optional<NodeInfo> decode(String group, String id, Object json, String master) {
        if (!(json instanceof byte[] bytes)) {
            return Optional.empty();
        }
        return decodeQuietly(group, id, bytes)
                .map(node -> node.withRole(node.id().equals(master) ? Role.LEADER : Role.FOLLOWER));
    }

    private Optional<NodeInfo> decodeQuietly(String group, String entry, byte[] json) {
        try {
            return Optional.of(codec.decode(json));
        } catch (IllegalArgumentException e) {
            log.warn("Skipping unreadable process entry {} of group {}: {}", entry, group, e.getMessage());
            return Optional.empty();
        }
    }

    private static String masterOf(Object value) {
        return value == null ? null : Replies.text(value);
    }
}

package dev.baton.redis.internal;

import static dev.baton.redis.internal.Replies.utf8;

import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.output.KeyValueStreamingChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
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
 * <p>Roles read back are derived from the group's live lease (its {@code master} key, unless the lease is bound to a
 * session that has ended), never trusted from the entry. An entry
 * whose JSON cannot be read is skipped with a warning rather than failing the listing.
 */
public final class RedisRegistry {

    private static final Logger log = LoggerFactory.getLogger(RedisRegistry.class);

    private final ScriptRunner scripts;
    private final RedisClusterAsyncCommands<String, byte[]> commands;
    private final NodeInfoCodec codec;
    private final String keyPrefix;
    private final StoreFailures failures;
    private final SessionKeys sessionKeys;

    /** @param sessionKeys where the scripts find the session a lease is bound to, to judge whether it is live */
    public RedisRegistry(ScriptRunner scripts, RedisClusterAsyncCommands<String, byte[]> commands, NodeInfoCodec codec,
            String keyPrefix, StoreFailures failures, SessionKeys sessionKeys) {
        this.scripts = scripts;
        this.commands = commands;
        this.codec = codec;
        this.keyPrefix = keyPrefix;
        this.failures = failures;
        this.sessionKeys = sessionKeys;
    }

    /** See {@link dev.baton.core.store.RegistryStore#register}. */
    public CompletableFuture<Void> register(String group, NodeInfo node, Duration ttl) {
        return failures.guard("register " + node.id(), () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<Long>run(Scripts.REGISTER, ScriptOutputType.INTEGER,
                    new String[] {k.processes(), k.processesExpiry(), k.master(), k.masterSession()},
                    utf8(node.id()), utf8(RedisLeases.millis(ttl)), codec.encode(node), utf8(k.membersChannel()),
                    sessions(k))
                    .thenApply(added -> null);
        });
    }

    /** See {@link dev.baton.core.store.RegistryStore#heartbeat}: one script, one round trip. */
    public CompletableFuture<Boolean> heartbeat(String group, String nodeId, Duration ttl) {
        return failures.guard("heartbeat " + nodeId, () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<Long>run(Scripts.HEARTBEAT, ScriptOutputType.INTEGER,
                    new String[] {k.processes(), k.processesExpiry(), k.master(), k.masterSession()},
                    utf8(nodeId), utf8(RedisLeases.millis(ttl)), sessions(k))
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
     * lease holder. The entries are decoded one by one as {@code HGETALL}'s reply streams in, so decoding overlaps
     * the transfer of the rest instead of following it, and no map of the raw entries is built.
     */
    public CompletableFuture<List<NodeInfo>> members(String group) {
        return failures.guard("list members", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            DecodedEntries decoded = new DecodedEntries(group);
            CompletableFuture<Long> entries = commands.hgetall(decoded, k.processes()).toCompletableFuture();
            CompletableFuture<List<Object>> meta = scripts.run(Scripts.MEMBERS, ScriptOutputType.MULTI,
                    new String[] {k.processesExpiry(), k.master(), k.masterSession()}, sessions(k));
            return entries.thenCombine(meta, (count, reply) -> decoded.live(reply));
        });
    }

    /** See {@link dev.baton.core.store.RegistryStore#member}. */
    public CompletableFuture<Optional<NodeInfo>> member(String group, String nodeId) {
        return failures.guard("read member " + nodeId, () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<List<Object>>run(Scripts.MEMBER, ScriptOutputType.MULTI,
                    new String[] {k.processes(), k.processesExpiry(), k.master(), k.masterSession()}, utf8(nodeId),
                    sessions(k))
                    .thenApply(reply -> reply.isEmpty()
                            ? Optional.<NodeInfo>empty()
                            : decode(group, nodeId, reply.get(0), masterOf(reply.get(1))));
        });
    }

    /**
     * See {@link dev.baton.core.store.RegistryStore#leaderInfo}: seed 000's {@code master_process}, read by
     * {@code leader_info.lua} only while the lease is live.
     */
    public CompletableFuture<Optional<NodeInfo>> leaderInfo(String group) {
        return failures.guard("read leader info", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<byte[]>run(Scripts.LEADER_INFO, ScriptOutputType.VALUE,
                    new String[] {k.master(), k.masterProcess(), k.masterSession()}, sessions(k))
                    .thenApply(json -> json == null
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

    /**
     * The entries of one listing, decoded on the I/O thread as {@code HGETALL} streams them (readable entries only,
     * each beside its hash field). Roles are settled once the lease holder is known.
     */
    private final class DecodedEntries implements KeyValueStreamingChannel<String, byte[]> {
        private final String group;
        private final List<String> ids = new ArrayList<>();
        private final List<NodeInfo> nodes = new ArrayList<>();

        DecodedEntries(String group) {
            this.group = group;
        }

        @Override
        public void onKeyValue(String id, byte[] json) {
            decodeQuietly(group, id, json).ifPresent(node -> {
                ids.add(id);
                nodes.add(node);
            });
        }

        /** The entries not expired by the {@code members.lua} reply, each with the role its lease gives it, by id. */
        List<NodeInfo> live(List<Object> meta) {
            String master = masterOf(meta.get(0));
            List<?> expiredIds = Replies.list(meta.get(1));
            Set<String> expired = new HashSet<>(expiredIds.size() * 2);
            for (Object id : expiredIds) {
                expired.add(Replies.text(id));
            }
            List<NodeInfo> live = new ArrayList<>(nodes.size());
            for (int i = 0; i < nodes.size(); i++) {
                if (!expired.contains(ids.get(i))) {
                    NodeInfo node = nodes.get(i);
                    Role role = node.id().equals(master) ? Role.LEADER : Role.FOLLOWER;
                    // Most entries already say what the lease makes them; copy only those that do not.
                    live.add(node.role() == role ? node : node.withRole(role));
                }
            }
            live.sort(Comparator.comparing(NodeInfo::id));
            return live;
        }
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

    private byte[] sessions(GroupKeys k) {
        return utf8(sessionKeys.sessionsFor(k));
    }

    private static String masterOf(Object value) {
        return value == null ? null : Replies.text(value);
    }
}

package dev.baton.redis.internal;

import static dev.baton.redis.internal.Replies.utf8;

import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.StoreException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Fenced maps on Redis (DESIGN §3 rule 2): a hash per map, entry key to the entry in {@link FencedEntryCodec} form,
 * changed by {@code fenced_put.lua} and {@code fenced_remove.lua} only under the group's newest issued term. Reads
 * are plain {@code HGET}/{@code HGETALL}; an entry that cannot be decoded fails the read rather than being skipped,
 * since a missing work item would silently change what the cluster does.
 */
public final class RedisFencedMaps {

    private final ScriptRunner scripts;
    private final RedisClusterAsyncCommands<String, byte[]> commands;
    private final String keyPrefix;
    private final StoreFailures failures;
    private final ReplicaAcknowledgement acknowledgement;

    /**
     * @param acknowledgement the replica wait applied after a write the primary accepted, and before a read is
     *                        returned (it may wait for none)
     */
    public RedisFencedMaps(ScriptRunner scripts, RedisClusterAsyncCommands<String, byte[]> commands, String keyPrefix,
            StoreFailures failures, ReplicaAcknowledgement acknowledgement) {
        this.scripts = scripts;
        this.commands = commands;
        this.keyPrefix = keyPrefix;
        this.failures = failures;
        this.acknowledgement = acknowledgement;
    }

    /** See {@link dev.baton.core.store.FencedMapStore#fencedPut}. */
    public CompletableFuture<FencedMapWrite> put(String group, String map, String key, String nodeId, long term,
            byte[] value) {
        return failures.guard("fenced put to map " + map, () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            CompletableFuture<FencedMapWrite> put = scripts.<List<Object>>run(Scripts.FENCED_PUT,
                    ScriptOutputType.MULTI, new String[] {k.term(), k.map(map)}, utf8(Long.toString(term)),
                    utf8(key), FencedEntryCodec.encode(term, nodeId, value))
                    .thenApply(RedisFencedMaps::result);
            return acknowledgement.await("fenced put to map " + map, k.map(map), put, FencedMapWrite::accepted);
        });
    }

    /** See {@link dev.baton.core.store.FencedMapStore#fencedRemove}. */
    public CompletableFuture<FencedMapWrite> remove(String group, String map, String key, long term) {
        return failures.guard("fenced remove from map " + map, () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            CompletableFuture<FencedMapWrite> removed = scripts.<List<Object>>run(Scripts.FENCED_REMOVE,
                    ScriptOutputType.MULTI, new String[] {k.term(), k.map(map)}, utf8(Long.toString(term)),
                    utf8(key))
                    .thenApply(RedisFencedMaps::result);
            return acknowledgement.await("fenced remove from map " + map, k.map(map), removed,
                    FencedMapWrite::accepted);
        });
    }

    /** See {@link dev.baton.core.store.FencedMapStore#mapGet}. */
    public CompletableFuture<Optional<FencedValue>> get(String group, String map, String key) {
        return failures.guard("read map " + map, () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return acknowledgement.confirmRead("read map " + map, k.map(map), commands.hget(k.map(map), key)
                    .thenApply(stored -> stored == null
                            ? Optional.<FencedValue>empty()
                            : Optional.of(decode(map, key, stored))));
        });
    }

    /** See {@link dev.baton.core.store.FencedMapStore#mapEntries}: ordered by key, as {@link String} compares. */
    public CompletableFuture<SortedMap<String, FencedValue>> entries(String group, String map) {
        return failures.guard("list map " + map, () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return acknowledgement.confirmRead("list map " + map, k.map(map), commands.hgetall(k.map(map))
                    .thenApply(all -> {
                        SortedMap<String, FencedValue> entries = new TreeMap<>();
                        for (Map.Entry<String, byte[]> entry : all.entrySet()) {
                            entries.put(entry.getKey(), decode(map, entry.getKey(), entry.getValue()));
                        }
                        return entries;
                    }));
        });
    }

    private static FencedMapWrite result(List<Object> reply) {
        return new FencedMapWrite(Replies.number(reply.get(0)) == 1L, Replies.number(reply.get(1)),
                Replies.number(reply.get(2)) == 1L);
    }

    private static FencedValue decode(String map, String key, byte[] stored) {
        try {
            return FencedEntryCodec.decode(stored);
        } catch (IllegalArgumentException e) {
            throw new StoreException("unreadable entry '" + key + "' in fenced map " + map + ": " + e.getMessage(),
                    e);
        }
    }
}

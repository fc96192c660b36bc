package dev.baton.core.store;

import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;

/**
 * Named maps of a group whose writes are fenced like {@link FencedStore} registers: a put or remove under
 * {@code term} is applied only if {@code term} is the newest term the store has issued for the group. So an entry
 * written by a leader that has since lost its lease is refused by the store itself, whatever that leader believes.
 *
 * <p>The HTTP control plane keeps the desired work items here ({@code PUT /work/items/{id}}); reads are not fenced
 * and any node may make them. Keys are any non-empty strings; values are opaque bytes.
 */
public interface FencedMapStore {

    /** Sets {@code key} to {@code value} in {@code map} if {@code term} is the group's newest term. */
    CompletableFuture<FencedMapWrite> fencedPut(String group, String map, String key, String nodeId, long term,
            byte[] value);

    /** Removes {@code key} from {@code map} if {@code term} is the group's newest term; idempotent. */
    CompletableFuture<FencedMapWrite> fencedRemove(String group, String map, String key, String nodeId, long term);

    /** One entry, with the term and node of the write that produced it. */
    CompletableFuture<Optional<FencedValue>> mapGet(String group, String map, String key);

    /** Every entry of {@code map}, ordered by key. */
    CompletableFuture<SortedMap<String, FencedValue>> mapEntries(String group, String map);
}

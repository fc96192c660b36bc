package dev.baton.server;

import dev.baton.core.store.FencedMapStore;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedValue;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Fenced maps that hold nothing and answer every write at once, accepted or refused as {@code accept} says at that
 * moment, with the write's own term as the current one (a refusal then reads as a term that ended, as the serverless
 * work store reports it). A put finds no entry; a remove finds one.
 */
public final class FixedAnswerMaps implements FencedMapStore {

    private final BooleanSupplier accept;

    public FixedAnswerMaps(BooleanSupplier accept) {
        this.accept = accept;
    }

    @Override
    public CompletableFuture<FencedMapWrite> fencedPut(String group, String map, String key, String nodeId, long term,
            byte[] value) {
        return CompletableFuture.completedFuture(new FencedMapWrite(accept.getAsBoolean(), term, false));
    }

    @Override
    public CompletableFuture<FencedMapWrite> fencedRemove(String group, String map, String key, String nodeId,
            long term) {
        return CompletableFuture.completedFuture(new FencedMapWrite(accept.getAsBoolean(), term, true));
    }

    @Override
    public CompletableFuture<Optional<FencedValue>> mapGet(String group, String map, String key) {
        return CompletableFuture.completedFuture(Optional.empty());
    }

    @Override
    public CompletableFuture<SortedMap<String, FencedValue>> mapEntries(String group, String map) {
        return CompletableFuture.completedFuture(new TreeMap<>());
    }
}

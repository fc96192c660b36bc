package dev.baton.peer.bully;

import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.store.LeaderRecordWrite;
import dev.baton.core.store.StoreException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Seed 004's stand-alone mode ("self == leader"): the leader record lives in this process only, so no other process
 * can find the group and the node leads it alone. A {@link Bully} election on this store founds its group at once
 * instead of looking for a leader. Records stay in memory for the life of the instance; terms still only grow.
 */
public final class StandaloneLeaderStore implements LeaderRecordStore {

    private final Map<String, LeaderRecord> records = new HashMap<>();
    private boolean closed;

    @Override
    public synchronized CompletableFuture<Optional<LeaderRecord>> readLeader(String group) {
        Objects.requireNonNull(group, "group");
        if (closed) {
            return CompletableFuture.failedFuture(new StoreException("the stand-alone leader store is closed"));
        }
        return CompletableFuture.completedFuture(Optional.ofNullable(records.get(group)));
    }

    @Override
    public synchronized CompletableFuture<LeaderRecordWrite> writeLeader(LeaderRecord record) {
        Objects.requireNonNull(record, "record");
        if (closed) {
            return CompletableFuture.failedFuture(new StoreException("the stand-alone leader store is closed"));
        }
        LeaderRecordWrite result = LeaderRecordRule.decide(records.get(record.group()), record);
        if (result.accepted()) {
            records.put(record.group(), record);
        }
        return CompletableFuture.completedFuture(result);
    }

    @Override
    public String describe() {
        return "standalone";
    }

    @Override
    public synchronized void close() {
        closed = true;
    }
}

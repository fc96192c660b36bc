package dev.baton.core.store;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Where a group's one leader record lives: seed 004's {@code GMLeaderSetterGetter} ({@code GetDBLeader},
 * {@code SetDBLeader}, {@code Cleanup}), made safe by a compare-and-set on the term.
 *
 * <p>{@link #writeLeader} stores {@code record} only if the group has no record yet, or the stored term is smaller than
 * {@code record.term()}, or the stored record has the same term and the same {@code leaderId} (a leader refreshing
 * its own record). Anything else is refused and answered with the stored record, so a stale leader cannot overwrite a
 * newer one and a term is never given to two leaders. The stored term never goes down.
 *
 * <p>Every {@link CoordinationStore} offers one on its own connections ({@link CoordinationStore#leaderRecords()});
 * {@code baton-peer} adds a stand-alone one (the node itself is always the leader) and a local file. Implementations
 * pass the testkit's {@code LeaderRecordStoreConformanceSuite}. Calls never block the caller; failures complete the
 * future with a
 * {@link StoreException}.
 */
public interface LeaderRecordStore extends AutoCloseable {

    /** The group's record, or empty if none was ever written: the seed's {@code GetDBLeader}. */
    CompletableFuture<Optional<LeaderRecord>> readLeader(String group);

    /** Compare-and-set on the term, see the class comment: the seed's {@code SetDBLeader}. */
    CompletableFuture<LeaderRecordWrite> writeLeader(LeaderRecord record);

    /** A short description for logs and status; never contains secrets. */
    String describe();

    /** Releases connections and files: the seed's {@code Cleanup}. The stored record stays. */
    @Override
    void close();
}

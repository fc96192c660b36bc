package dev.baton.etcd.internal;

import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordWrite;
import dev.baton.core.store.StoreException;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Leader records on etcd: one key per group, written by compare-and-set on its mod revision. A writer reads the
 * record, decides by the term rule of {@link dev.baton.core.store.LeaderRecordStore}, and writes only if the key is
 * still what it read; if another writer came first it reads again and decides again.
 */
public final class EtcdLeaderRecords {

    /** Each lost race means another write was applied, so this bounds how many concurrent writers one call outlasts. */
    private static final int ATTEMPTS = 64;

    private final KV kv;
    private final String keyPrefix;
    private final EtcdCalls calls;

    public EtcdLeaderRecords(Client client, String keyPrefix, EtcdCalls calls) {
        this.kv = client.getKVClient();
        this.keyPrefix = keyPrefix;
        this.calls = calls;
    }

    public CompletableFuture<Optional<LeaderRecord>> readLeader(String group) {
        ByteSequence key = GroupKeys.of(keyPrefix, group).leaderRecord();
        return calls.guard("read leader record", () -> kv.get(key)
                .thenApply(get -> EtcdLeases.first(get).map(entry -> EtcdJson.leaderRecord(entry.getValue()))));
    }

    public CompletableFuture<LeaderRecordWrite> writeLeader(LeaderRecord record) {
        ByteSequence key = GroupKeys.of(keyPrefix, record.group()).leaderRecord();
        return calls.guard("write leader record", () -> attempt(key, record, 0));
    }

    private CompletableFuture<LeaderRecordWrite> attempt(ByteSequence key, LeaderRecord record, int attempt) {
        if (attempt >= ATTEMPTS) {
            return CompletableFuture.failedFuture(new StoreException("write leader record lost " + ATTEMPTS
                    + " races in a row"));
        }
        return kv.get(key).thenCompose(get -> {
            Optional<KeyValue> stored = EtcdLeases.first(get);
            Optional<LeaderRecord> current = stored.map(entry -> EtcdJson.leaderRecord(entry.getValue()));
            if (current.isPresent() && !replaces(record, current.get())) {
                return CompletableFuture.completedFuture(new LeaderRecordWrite(false, current.get()));
            }
            long seen = stored.map(KeyValue::getModRevision).orElse(0L);
            return kv.txn()
                    .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(seen)))
                    .Then(Op.put(key, EtcdJson.leaderRecord(record), PutOption.DEFAULT))
                    .commit()
                    .thenCompose(txn -> txn.isSucceeded()
                            ? CompletableFuture.completedFuture(new LeaderRecordWrite(true, record))
                            : attempt(key, record, attempt + 1));
        });
    }

    private static boolean replaces(LeaderRecord record, LeaderRecord stored) {
        return stored.term() < record.term()
                || stored.term() == record.term() && stored.leaderId().equals(record.leaderId());
    }
}

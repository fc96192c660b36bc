package dev.baton.etcd.internal;

import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.FencedWriteResult;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Fenced registers and maps on etcd. A write under {@code term} is one transaction guarded by "the group's term key
 * was last written at revision {@code term}": the term key is rewritten by every grant (see {@link EtcdLeases}), so
 * its mod revision is the newest term issued, and the guard holds exactly when {@code term} is that term. A refused
 * write reads the term key in the same transaction, to answer with the term that fenced it out.
 */
public final class EtcdFencing {

    private final KV kv;
    private final String keyPrefix;
    private final EtcdCalls calls;

    public EtcdFencing(Client client, String keyPrefix, EtcdCalls calls) {
        this.kv = client.getKVClient();
        this.keyPrefix = keyPrefix;
        this.calls = calls;
    }

    public CompletableFuture<FencedWriteResult> fencedWrite(String group, String register, String nodeId, long term,
            byte[] value) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        return calls.guard("fenced write", () -> fenced(keys, term,
                Op.put(keys.register(register), EtcdJson.fenced(term, nodeId, value), PutOption.DEFAULT))
                .thenApply(txn -> new FencedWriteResult(txn.isSucceeded(), txn.isSucceeded() ? term
                        : newestTerm(txn))));
    }

    public CompletableFuture<Optional<FencedValue>> fencedRead(String group, String register) {
        ByteSequence key = GroupKeys.of(keyPrefix, group).register(register);
        return calls.guard("fenced read", () -> kv.get(key)
                .thenApply(get -> EtcdLeases.first(get).map(entry -> EtcdJson.fenced(entry.getValue()))));
    }

    public CompletableFuture<FencedMapWrite> fencedPut(String group, String map, String key, String nodeId,
            long term, byte[] value) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        return calls.guard("fenced map put", () -> fenced(keys, term, Op.put(keys.mapEntry(map, key),
                EtcdJson.fenced(term, nodeId, value), PutOption.builder().withPrevKV().build()))
                .thenApply(txn -> txn.isSucceeded()
                        ? new FencedMapWrite(true, term, txn.getPutResponses().get(0).hasPrevKv())
                        : new FencedMapWrite(false, newestTerm(txn), false)));
    }

    public CompletableFuture<FencedMapWrite> fencedRemove(String group, String map, String key, String nodeId,
            long term) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        return calls.guard("fenced map remove", () -> fenced(keys, term,
                Op.delete(keys.mapEntry(map, key), DeleteOption.DEFAULT))
                .thenApply(txn -> txn.isSucceeded()
                        ? new FencedMapWrite(true, term, txn.getDeleteResponses().get(0).getDeleted() > 0)
                        : new FencedMapWrite(false, newestTerm(txn), false)));
    }

    public CompletableFuture<Optional<FencedValue>> mapGet(String group, String map, String key) {
        ByteSequence entryKey = GroupKeys.of(keyPrefix, group).mapEntry(map, key);
        return calls.guard("map get", () -> kv.get(entryKey)
                .thenApply(get -> EtcdLeases.first(get).map(entry -> EtcdJson.fenced(entry.getValue()))));
    }

    public CompletableFuture<SortedMap<String, FencedValue>> mapEntries(String group, String map) {
        ByteSequence prefix = GroupKeys.of(keyPrefix, group).map(map);
        return calls.guard("map entries", () -> kv.get(prefix, GetOption.builder().isPrefix(true).build())
                .thenApply(get -> {
                    SortedMap<String, FencedValue> entries = new TreeMap<>();
                    for (KeyValue entry : get.getKvs()) {
                        entries.put(GroupKeys.mapKey(prefix, entry.getKey()), EtcdJson.fenced(entry.getValue()));
                    }
                    return entries;
                }));
    }

    /**
     * {@code write} if {@code term} is the newest term issued, else a read of the term key. Terms below 1 were never
     * issued (and a missing key's mod revision is 0), so they get a guard that cannot hold.
     */
    private CompletableFuture<TxnResponse> fenced(GroupKeys keys, long term, Op write) {
        Cmp guard = term < 1
                ? new Cmp(keys.term(), Cmp.Op.LESS, CmpTarget.modRevision(0))
                : new Cmp(keys.term(), Cmp.Op.EQUAL, CmpTarget.modRevision(term));
        return kv.txn().If(guard).Then(write).Else(Op.get(keys.term(), GetOption.DEFAULT)).commit();
    }

    private static long newestTerm(TxnResponse refused) {
        return EtcdLeases.first(refused.getGetResponses().get(0)).map(KeyValue::getModRevision).orElse(0L);
    }
}

package dev.baton.etcd.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import dev.baton.testkit.EtcdCluster;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.kv.CompactResponse;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.PutResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.CompactOption;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.TxnOption;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A call the election gave up on keeps running on etcd and may land after the node's next call (jetcd carries it over
 * an etcd leader change). Such a straggler must never end or shorten a lease its node took after it: here its
 * transaction is held back on the way to etcd until the newer call has been answered, then let through.
 */
class EtcdStragglerTest {

    private static final Duration TTL = Duration.ofSeconds(10);
    private static final NodeInfo NODE = NodeInfo.of("n3", "straggler-test");

    private static EtcdCluster etcd;
    private Client client;
    private HeldCommits kv;
    private EtcdLeases leases;
    private String group;

    @BeforeAll
    static void startEtcd() {
        assumeTrue(EtcdCluster.whyUnavailable().isEmpty(), () -> EtcdCluster.whyUnavailable().orElseThrow());
        etcd = EtcdCluster.start();
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @BeforeEach
    void connect() {
        client = Client.builder().endpoints(etcd.clientEndpoints().toArray(String[]::new)).build();
        kv = new HeldCommits(client.getKVClient());
        // Calls are not timed out here: the test plays the caller that moved on by simply starting the next call.
        EtcdCalls calls = new EtcdCalls("etcd://test", Duration.ofSeconds(30));
        leases = new EtcdLeases(withKv(client, kv), new EtcdWatches(client.getWatchClient(), "etcd://test"),
                "baton-straggler/", calls);
        group = "g-" + System.nanoTime();
    }

    @AfterEach
    void close() {
        kv.letThrough();
        client.close();
    }

    @Test
    void anAcquireOvertakenByTheNodesNextAcquireLeavesTheLeaseThatOneTook() throws Exception {
        long first = granted(leases.acquire(group, NODE, TTL));

        kv.holdNextCommit();
        CompletableFuture<AcquireResult> straggler = leases.acquire(group, NODE, TTL);
        await().atMost(Duration.ofSeconds(30)).until(kv::holding);
        // The node gave up on it and acquires again: it ends its own lease and takes a new term.
        long taken = granted(leases.acquire(group, NODE, TTL));
        assertThat(taken).isGreaterThan(first);

        kv.letThrough();
        assertThatThrownBy(straggler::join).hasMessageContaining("superseded");
        assertThat(leases.read(group).join()).map(Lease::term).contains(taken);
        assertThat(leases.renew(group, NODE.id(), taken, TTL).join()).isTrue();
    }

    @Test
    void aRenewalOvertakenByTheNextOneLeavesTheKeyOnTheNewerEtcdLease() throws Exception {
        long term = granted(leases.acquire(group, NODE, TTL));

        kv.holdNextCommit();
        CompletableFuture<Boolean> straggler = leases.renew(group, NODE.id(), term, TTL);
        await().atMost(Duration.ofSeconds(30)).until(kv::holding);
        assertThat(leases.renew(group, NODE.id(), term, TTL).join()).isTrue();
        long newer = leaseIdOfKey();

        kv.letThrough();
        assertThat(straggler.join()).as("the older renewal moved the key back").isFalse();
        assertThat(leaseIdOfKey()).isEqualTo(newer);
        assertThat(leases.renew(group, NODE.id(), term, TTL).join()).isTrue();
    }

    private long leaseIdOfKey() throws ExecutionException, InterruptedException {
        GetResponse get = client.getKVClient().get(GroupKeys.of("baton-straggler/", group).lease()).get();
        return get.getKvs().get(0).getLease();
    }

    private static long granted(CompletableFuture<AcquireResult> acquire) {
        AcquireResult result = acquire.join();
        assertThat(result).isInstanceOf(AcquireResult.Granted.class);
        return ((AcquireResult.Granted) result).term();
    }

    /** {@code client} with its KV client replaced by {@code kv}. */
    private static Client withKv(Client client, KV kv) {
        return (Client) Proxy.newProxyInstance(Client.class.getClassLoader(), new Class<?>[] {Client.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getKVClient")) {
                        return kv;
                    }
                    try {
                        return method.invoke(client, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** A KV client that, when asked, holds the next transaction's commit back until {@link #letThrough()}. */
    private static final class HeldCommits implements KV {

        private final KV kv;
        private final AtomicBoolean holdNext = new AtomicBoolean();
        private final AtomicReference<CompletableFuture<Void>> held = new AtomicReference<>();
        private final CompletableFuture<Void> gate = new CompletableFuture<>();

        HeldCommits(KV kv) {
            this.kv = kv;
        }

        void holdNextCommit() {
            holdNext.set(true);
        }

        boolean holding() {
            return held.get() != null;
        }

        void letThrough() {
            gate.complete(null);
        }

        @Override
        public Txn txn() {
            return wrap(kv.txn());
        }

        @Override
        public Txn txn(TxnOption option) {
            return wrap(kv.txn(option));
        }

        private Txn wrap(Txn txn) {
            return new Txn() {
                @Override
                public Txn If(Cmp... cmps) {
                    txn.If(cmps);
                    return this;
                }

                @Override
                public Txn Then(Op... ops) {
                    txn.Then(ops);
                    return this;
                }

                @Override
                public Txn Else(Op... ops) {
                    txn.Else(ops);
                    return this;
                }

                @Override
                public CompletableFuture<TxnResponse> commit() {
                    if (holdNext.compareAndSet(true, false)) {
                        held.set(gate);
                        return gate.thenCompose(ignored -> txn.commit());
                    }
                    return txn.commit();
                }
            };
        }

        @Override
        public CompletableFuture<PutResponse> put(ByteSequence key, ByteSequence value) {
            return kv.put(key, value);
        }

        @Override
        public CompletableFuture<PutResponse> put(ByteSequence key, ByteSequence value, PutOption option) {
            return kv.put(key, value, option);
        }

        @Override
        public CompletableFuture<GetResponse> get(ByteSequence key) {
            return kv.get(key);
        }

        @Override
        public CompletableFuture<GetResponse> get(ByteSequence key, GetOption option) {
            return kv.get(key, option);
        }

        @Override
        public CompletableFuture<DeleteResponse> delete(ByteSequence key) {
            return kv.delete(key);
        }

        @Override
        public CompletableFuture<DeleteResponse> delete(ByteSequence key, DeleteOption option) {
            return kv.delete(key, option);
        }

        @Override
        public CompletableFuture<CompactResponse> compact(long rev) {
            return kv.compact(rev);
        }

        @Override
        public CompletableFuture<CompactResponse> compact(long rev, CompactOption option) {
            return kv.compact(rev, option);
        }

        @Override
        public void close() {
            kv.close();
        }
    }
}

package dev.baton.etcd.internal;

import static dev.baton.etcd.internal.GroupKeys.bytes;
import static dev.baton.etcd.internal.GroupKeys.text;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.Subscription;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The group lease on etcd (DESIGN §3). The lease key holds the holder's node id and is attached to an etcd lease of
 * the requested TTL (rounded up to whole seconds: etcd's unit, and the safe direction, since the store then holds the
 * lease at least as long as the holder's local deadline). Its <b>create revision is the term</b>: etcd's revision
 * counter rises with every write to the cluster, is assigned by the raft leader in the linearizable transaction that
 * creates the key, and is never reused, so each grant's term is above every term issued before, across member
 * losses and etcd leader changes. The same transaction rewrites the group's term key, whose mod revision therefore
 * always equals the newest term issued, which is what fenced writes compare against.
 *
 * <p>Expiry is etcd's own: its leader revokes the etcd lease when the TTL runs out on its clock (a new etcd leader
 * restarts every lease's TTL, which only makes a lease last longer), and the key's deletion reaches every watcher as
 * a {@link LeaseNotice.Kind#RELEASED} notice at once. A renewal attaches the key to a fresh etcd lease of the new TTL
 * in a transaction that checks owner and term, then revokes the old etcd lease, which holds no key any more.
 *
 * <p><b>Calls that outlive their caller.</b> A call bounded by the store timeout keeps running on etcd after its caller
 * gave up on it: through an etcd leader change, jetcd carries it over to another member and it may land after the
 * caller's next call. Two rules keep such a straggler from ending a lease its node took after it:
 * <ul>
 *   <li>a node's acquire that finds the node's own lease in place ends it (to issue a new term) only while it is the
 *       newest acquire that node started on the group: a newer one may have created that very lease and handed its
 *       term to the election, and deleting it would open the group to another node while this one still leads;</li>
 *   <li>a renewal moves the key to its fresh etcd lease only if the key was not written since that etcd lease was
 *       granted, so an older renewal never moves it back to an etcd lease that runs out before the newer one.</li>
 * </ul>
 */
public final class EtcdLeases {

    private static final int ATTEMPTS = 8;
    private static final String SUPERSEDED = "acquire superseded by a later acquire of the same node: it stopped "
            + "before it could end the lease that one may have taken";

    private final KV kv;
    private final io.etcd.jetcd.Lease etcdLeases;
    private final EtcdWatches watches;
    private final String keyPrefix;
    private final EtcdCalls calls;
    /** Per group and node, a count of the acquires started: an acquire is current while the count is its own. */
    private final ConcurrentMap<String, AtomicLong> acquiresStarted = new ConcurrentHashMap<>();

    public EtcdLeases(Client client, EtcdWatches watches, String keyPrefix, EtcdCalls calls) {
        this.kv = client.getKVClient();
        this.etcdLeases = client.getLeaseClient();
        this.watches = watches;
        this.keyPrefix = keyPrefix;
        this.calls = calls;
    }

    /** Whole seconds of an etcd lease for {@code ttl}, rounded up: never shorter than asked. */
    public static long ttlSeconds(Duration ttl) {
        long millis = Math.max(1, ttl.toMillis());
        return (millis + 999) / 1000;
    }

    public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        AtomicLong started = acquiresStarted.computeIfAbsent(group + '\n' + candidate.id(), k -> new AtomicLong());
        long mine = started.incrementAndGet();
        BooleanSupplier current = () -> started.get() == mine;
        return calls.guard("acquire", () -> etcdLeases.grant(ttlSeconds(ttl))
                .thenCompose(grant -> attemptAcquire(keys, candidate, grant.getID(), current, 0)));
    }

    private CompletableFuture<AcquireResult> attemptAcquire(GroupKeys keys, NodeInfo candidate, long leaseId,
            BooleanSupplier current, int attempt) {
        if (attempt >= ATTEMPTS || !current.getAsBoolean()) {
            revokeQuietly(leaseId);
            return CompletableFuture.failedFuture(new StoreException(attempt >= ATTEMPTS
                    ? "acquire gave up after " + ATTEMPTS + " attempts: the lease changed hands under every one"
                    : SUPERSEDED));
        }
        return kv.txn()
                .If(new Cmp(keys.lease(), Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(keys.lease(), bytes(candidate.id()), PutOption.builder().withLeaseId(leaseId).build()),
                        Op.put(keys.leaderProcess(), EtcdJson.node(candidate), PutOption.DEFAULT),
                        Op.put(keys.term(), bytes(candidate.id()), PutOption.DEFAULT))
                .Else(Op.get(keys.lease(), GetOption.DEFAULT))
                .commit()
                .thenCompose(txn -> {
                    if (txn.isSucceeded()) {
                        return CompletableFuture.completedFuture(new AcquireResult.Granted(
                                txn.getHeader().getRevision()));
                    }
                    Optional<KeyValue> held = first(txn.getGetResponses().get(0));
                    if (held.isEmpty()) {
                        return attemptAcquire(keys, candidate, leaseId, current, attempt + 1);
                    }
                    KeyValue holder = held.get();
                    if (holder.getLease() == leaseId) {
                        // This call's own creation, applied by an earlier try of the same transaction.
                        return CompletableFuture.completedFuture(new AcquireResult.Granted(
                                holder.getCreateRevision()));
                    }
                    if (text(holder.getValue()).equals(candidate.id())) {
                        return takeOwnLeaseAgain(keys, candidate, leaseId, holder, current, attempt);
                    }
                    revokeQuietly(leaseId);
                    return remaining(holder).thenApply(left -> new AcquireResult.Denied(
                            new Lease(text(holder.getValue()), holder.getCreateRevision(), left)));
                });
    }

    /**
     * The holder takes its lease again under a new term: end the old one first, so the new grant creates the key
     * again and its create revision is a new term. Only the node's newest acquire may do so (see the class comment):
     * the lease was read after the transaction above, so if a newer acquire created it, that acquire had started by
     * then and this one is no longer current; if this one is current, the delete (which checks the lease's revision)
     * can only end the lease it read, which the node gave up before it started this acquire.
     */
    private CompletableFuture<AcquireResult> takeOwnLeaseAgain(GroupKeys keys, NodeInfo candidate, long leaseId,
            KeyValue held, BooleanSupplier current, int attempt) {
        if (!current.getAsBoolean()) {
            revokeQuietly(leaseId);
            return CompletableFuture.failedFuture(new StoreException(SUPERSEDED));
        }
        return kv.txn()
                .If(new Cmp(keys.lease(), Cmp.Op.EQUAL, CmpTarget.modRevision(held.getModRevision())))
                .Then(Op.delete(keys.lease(), DeleteOption.DEFAULT))
                .commit()
                .thenCompose(ended -> {
                    if (ended.isSucceeded()) {
                        revokeQuietly(held.getLease());
                    }
                    return attemptAcquire(keys, candidate, leaseId, current, attempt + 1);
                });
    }

    public CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        return calls.guard("renew", () -> etcdLeases.grant(ttlSeconds(ttl)).thenCompose(grant -> kv.txn()
                .If(renewable(keys, nodeId, term, grant.getHeader().getRevision()))
                .Then(Op.put(keys.lease(), bytes(nodeId),
                        PutOption.builder().withLeaseId(grant.getID()).withPrevKV().build()))
                .commit()
                .thenApply(txn -> {
                    if (txn.isSucceeded()) {
                        // The old etcd lease holds no key any more; revoking it only tidies up.
                        KeyValue previous = txn.getPutResponses().get(0).getPrevKv();
                        if (previous != null && previous.getLease() != 0) {
                            revokeQuietly(previous.getLease());
                        }
                    } else {
                        revokeQuietly(grant.getID());
                    }
                    return txn.isSucceeded();
                })));
    }

    public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        return calls.guard("release", () -> kv.txn()
                .If(held(keys, nodeId, term))
                .Then(Op.delete(keys.lease(), DeleteOption.builder().withPrevKV(true).build()),
                        Op.delete(keys.leaderProcess(), DeleteOption.DEFAULT))
                .commit()
                .thenApply(txn -> {
                    if (txn.isSucceeded()) {
                        txn.getDeleteResponses().get(0).getPrevKvs().forEach(kv -> revokeQuietly(kv.getLease()));
                    }
                    return txn.isSucceeded();
                }));
    }

    public CompletableFuture<Optional<Lease>> read(String group) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        return calls.guard("read lease", () -> kv.get(keys.lease()).thenCompose(get -> {
            Optional<KeyValue> held = first(get);
            if (held.isEmpty()) {
                return CompletableFuture.completedFuture(Optional.<Lease>empty());
            }
            KeyValue current = held.get();
            return remaining(current).thenApply(left -> Optional.of(
                    new Lease(text(current.getValue()), current.getCreateRevision(), left)));
        }));
    }

    /**
     * Acquisitions are the creations of the lease key, releases and expiries its deletions (with the deleted value,
     * so the notice names the holder and its term); renewals rewrite the key and are not announced.
     */
    public Subscription watch(String group, Consumer<LeaseNotice> listener) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        return watches.watch(keys.lease(), false, event -> {
            if (event.getEventType() == WatchEvent.EventType.PUT && event.getKeyValue().getVersion() == 1) {
                KeyValue created = event.getKeyValue();
                listener.accept(new LeaseNotice(LeaseNotice.Kind.ACQUIRED, text(created.getValue()),
                        created.getCreateRevision()));
            } else if (event.getEventType() == WatchEvent.EventType.DELETE && event.getPrevKV() != null
                    && event.getPrevKV().getCreateRevision() != 0) {
                KeyValue ended = event.getPrevKV();
                listener.accept(new LeaseNotice(LeaseNotice.Kind.RELEASED, text(ended.getValue()),
                        ended.getCreateRevision()));
            }
        });
    }

    /** The lease key holds {@code nodeId} under {@code term}. */
    static Cmp[] held(GroupKeys keys, String nodeId, long term) {
        return new Cmp[] {
            new Cmp(keys.lease(), Cmp.Op.EQUAL, CmpTarget.value(bytes(nodeId))),
            new Cmp(keys.lease(), Cmp.Op.EQUAL, CmpTarget.createRevision(term))
        };
    }

    /**
     * {@link #held} and the key not written since revision {@code grantedAt}, when the renewal's etcd lease was
     * granted: a renewal that lands after a newer one (or after a new acquire) leaves the key where it is, on the
     * etcd lease that runs out later.
     */
    static Cmp[] renewable(GroupKeys keys, String nodeId, long term, long grantedAt) {
        Cmp[] held = held(keys, nodeId, term);
        Cmp[] all = java.util.Arrays.copyOf(held, held.length + 1);
        all[held.length] = new Cmp(keys.lease(), Cmp.Op.LESS, CmpTarget.modRevision(grantedAt + 1));
        return all;
    }

    /**
     * What is left of the etcd lease behind {@code key}. etcd answers in whole seconds, rounded down, so a quarter
     * second is added (a follower that wakes too early only asks again), capped at the granted TTL.
     */
    private CompletableFuture<Duration> remaining(KeyValue key) {
        if (key.getLease() == 0) {
            return CompletableFuture.completedFuture(Duration.ofMillis(1));
        }
        return etcdLeases.timeToLive(key.getLease(), LeaseOption.DEFAULT).thenApply(ttl -> {
            if (ttl.getTTL() <= 0) {
                return Duration.ofMillis(250);
            }
            Duration left = Duration.ofSeconds(ttl.getTTL()).plusMillis(250);
            Duration granted = Duration.ofSeconds(ttl.getGrantedTTL());
            return left.compareTo(granted) > 0 ? granted : left;
        });
    }

    void revokeQuietly(long leaseId) {
        if (leaseId != 0) {
            etcdLeases.revoke(leaseId).exceptionally(e -> null);
        }
    }

    static Optional<KeyValue> first(GetResponse get) {
        return get.getKvs().isEmpty() ? Optional.empty() : Optional.of(get.getKvs().get(0));
    }
}

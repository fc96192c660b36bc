package dev.baton.etcd.internal;

import static dev.baton.etcd.internal.GroupKeys.bytes;
import static dev.baton.etcd.internal.GroupKeys.text;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.SessionEndedException;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.Subscription;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
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
 * <p><b>Leases bound to a session.</b> A session ({@link EtcdSessions}) is one etcd lease. A lease bound to it is the
 * same lease key written with the session's etcd lease attached, so etcd deletes it the moment the session ends, in
 * the same step that ends the session: no client judges expiry, and a takeover is the usual "the key does not exist"
 * transaction. The key's value is then the holder's node id, a NUL character and the session id ({@link #owner} and
 * {@link #session} read it back); a value without NUL is a lease with a TTL of its own. A bound lease is never
 * renewed, and its etcd lease is never revoked by a release or a takeover, since it is the session's.
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
        BooleanSupplier current = startAcquire(group, candidate);
        return calls.guard("acquire", () -> etcdLeases.grant(ttlSeconds(ttl))
                .thenCompose(grant -> attemptAcquire(keys, candidate, new Grant(grant.getID(), null), current, 0)));
    }

    /**
     * See {@link dev.baton.core.store.SessionStore#acquire}: as {@link #acquire(String, NodeInfo, Duration)}, with the
     * key on the session's etcd lease, in a transaction that also requires the session's key to exist (so the etcd
     * lease is alive when the key is attached to it); fails with {@link SessionEndedException} if it does not.
     */
    public CompletableFuture<AcquireResult> acquire(String group, String session, NodeInfo candidate) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        long leaseId = EtcdSessions.leaseId(session);
        if (leaseId == 0) {
            return CompletableFuture.failedFuture(new SessionEndedException(session));
        }
        BooleanSupplier current = startAcquire(group, candidate);
        return calls.guard("acquire", () -> attemptAcquire(keys, candidate, new Grant(leaseId, session), current, 0));
    }

    /** Counts an acquire of {@code candidate} on {@code group}; the supplier says whether it is still the newest. */
    private BooleanSupplier startAcquire(String group, NodeInfo candidate) {
        AtomicLong started = acquiresStarted.computeIfAbsent(group + '\n' + candidate.id(), k -> new AtomicLong());
        long mine = started.incrementAndGet();
        return () -> started.get() == mine;
    }

    /**
     * The etcd lease an acquire attaches the key to: its own, granted for it (session null; revoked if it is not
     * used), or a session's (never revoked here).
     */
    private record Grant(long leaseId, String session) {

        ByteSequence value(NodeInfo candidate) {
            return bytes(session == null ? candidate.id() : candidate.id() + BOUND + session);
        }

        void discard(EtcdLeases leases) {
            if (session == null) {
                leases.revokeQuietly(leaseId);
            }
        }
    }

    private CompletableFuture<AcquireResult> attemptAcquire(GroupKeys keys, NodeInfo candidate, Grant grant,
            BooleanSupplier current, int attempt) {
        if (attempt >= ATTEMPTS || !current.getAsBoolean()) {
            grant.discard(this);
            return CompletableFuture.failedFuture(new StoreException(attempt >= ATTEMPTS
                    ? "acquire gave up after " + ATTEMPTS + " attempts: the lease changed hands under every one"
                    : SUPERSEDED));
        }
        PutOption onLease = PutOption.builder().withLeaseId(grant.leaseId()).build();
        ByteSequence sessionKey = grant.session() == null ? null : GroupKeys.session(keyPrefix, grant.session());
        Cmp free = new Cmp(keys.lease(), Cmp.Op.EQUAL, CmpTarget.createRevision(0));
        Cmp[] conditions = sessionKey == null ? new Cmp[] {free}
                : new Cmp[] {free, new Cmp(sessionKey, Cmp.Op.GREATER, CmpTarget.createRevision(0))};
        Op[] otherwise = sessionKey == null ? new Op[] {Op.get(keys.lease(), GetOption.DEFAULT)}
                : new Op[] {Op.get(keys.lease(), GetOption.DEFAULT), Op.get(sessionKey, GetOption.DEFAULT)};
        return kv.txn()
                .If(conditions)
                .Then(Op.put(keys.lease(), grant.value(candidate), onLease),
                        Op.put(keys.leaderProcess(), EtcdJson.node(candidate),
                                grant.session() == null ? PutOption.DEFAULT : onLease),
                        Op.put(keys.term(), bytes(candidate.id()), PutOption.DEFAULT))
                .Else(otherwise)
                .commit()
                .thenCompose(txn -> {
                    if (txn.isSucceeded()) {
                        return CompletableFuture.completedFuture(new AcquireResult.Granted(
                                txn.getHeader().getRevision()));
                    }
                    if (sessionKey != null && txn.getGetResponses().get(1).getKvs().isEmpty()) {
                        return CompletableFuture.failedFuture(new SessionEndedException(grant.session()));
                    }
                    Optional<KeyValue> held = first(txn.getGetResponses().get(0));
                    if (held.isEmpty()) {
                        return attemptAcquire(keys, candidate, grant, current, attempt + 1);
                    }
                    KeyValue holder = held.get();
                    if (grant.session() == null && holder.getLease() == grant.leaseId()) {
                        // This call's own creation, applied by an earlier try of the same transaction.
                        return CompletableFuture.completedFuture(new AcquireResult.Granted(
                                holder.getCreateRevision()));
                    }
                    if (owner(holder).equals(candidate.id())) {
                        return takeOwnLeaseAgain(keys, candidate, grant, holder, current, attempt);
                    }
                    grant.discard(this);
                    return remaining(holder).thenApply(left -> new AcquireResult.Denied(lease(holder, left)));
                });
    }

    /**
     * The holder takes its lease again under a new term: end the old one first, so the new grant creates the key
     * again and its create revision is a new term. Only the node's newest acquire may do so (see the class comment):
     * the lease was read after the transaction above, so if a newer acquire created it, that acquire had started by
     * then and this one is no longer current; if this one is current, the delete (which checks the lease's revision)
     * can only end the lease it read, which the node gave up before it started this acquire.
     */
    private CompletableFuture<AcquireResult> takeOwnLeaseAgain(GroupKeys keys, NodeInfo candidate, Grant grant,
            KeyValue held, BooleanSupplier current, int attempt) {
        if (!current.getAsBoolean()) {
            grant.discard(this);
            return CompletableFuture.failedFuture(new StoreException(SUPERSEDED));
        }
        return kv.txn()
                .If(new Cmp(keys.lease(), Cmp.Op.EQUAL, CmpTarget.modRevision(held.getModRevision())))
                .Then(Op.delete(keys.lease(), DeleteOption.DEFAULT))
                .commit()
                .thenCompose(ended -> {
                    if (ended.isSucceeded()) {
                        revokeOwnQuietly(held);
                    }
                    return attemptAcquire(keys, candidate, grant, current, attempt + 1);
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

    /** Releases a lease of either kind held by {@code nodeId} under {@code term}. */
    public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        return calls.guard("release", () -> kv.txn()
                .If(held(keys, nodeId, term))
                .Then(Op.delete(keys.lease(), DeleteOption.builder().withPrevKV(true).build()),
                        Op.delete(keys.leaderProcess(), DeleteOption.DEFAULT))
                .Else(Op.get(keys.lease(), GetOption.DEFAULT))
                .commit()
                .thenCompose(txn -> {
                    if (txn.isSucceeded()) {
                        txn.getDeleteResponses().get(0).getPrevKvs().forEach(this::revokeOwnQuietly);
                        return CompletableFuture.completedFuture(true);
                    }
                    // A lease bound to a session holds more than the node id: released if it is that node's.
                    return releaseIf(keys, first(txn.getGetResponses().get(0)), held -> !session(held).isEmpty()
                            && owner(held).equals(nodeId) && held.getCreateRevision() == term);
                }));
    }

    /** See {@link dev.baton.core.store.SessionStore#release}: the lease if bound to {@code session} under {@code term}. */
    public CompletableFuture<Boolean> releaseBound(String group, String session, long term) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        return calls.guard("release", () -> kv.get(keys.lease()).thenCompose(get -> releaseIf(keys, first(get),
                held -> session(held).equals(session) && held.getCreateRevision() == term)));
    }

    /**
     * Deletes the lease key read as {@code read} if {@code releasable} says so, in a transaction that checks it was
     * not written since: the key and the holder's process info, not the session's etcd lease.
     */
    private CompletableFuture<Boolean> releaseIf(GroupKeys keys, Optional<KeyValue> read,
            java.util.function.Predicate<KeyValue> releasable) {
        if (read.isEmpty() || !releasable.test(read.get())) {
            return CompletableFuture.completedFuture(false);
        }
        return kv.txn()
                .If(new Cmp(keys.lease(), Cmp.Op.EQUAL, CmpTarget.modRevision(read.get().getModRevision())))
                .Then(Op.delete(keys.lease(), DeleteOption.DEFAULT), Op.delete(keys.leaderProcess(),
                        DeleteOption.DEFAULT))
                .commit()
                .thenApply(TxnResponse::isSucceeded);
    }

    public CompletableFuture<Optional<Lease>> read(String group) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        return calls.guard("read lease", () -> kv.get(keys.lease()).thenCompose(get -> {
            Optional<KeyValue> held = first(get);
            if (held.isEmpty()) {
                return CompletableFuture.completedFuture(Optional.<Lease>empty());
            }
            KeyValue current = held.get();
            return remaining(current).thenApply(left -> Optional.of(lease(current, left)));
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
                listener.accept(new LeaseNotice(LeaseNotice.Kind.ACQUIRED, owner(created),
                        created.getCreateRevision()));
            } else if (event.getEventType() == WatchEvent.EventType.DELETE && event.getPrevKV() != null
                    && event.getPrevKV().getCreateRevision() != 0) {
                KeyValue ended = event.getPrevKV();
                listener.accept(new LeaseNotice(LeaseNotice.Kind.RELEASED, owner(ended),
                        ended.getCreateRevision()));
            }
        });
    }

    /** Separates the holder's node id from its session's id in the value of a bound lease key. */
    private static final char BOUND = '\0';

    /** The holder's node id in a lease key's value. */
    public static String owner(KeyValue lease) {
        String value = text(lease.getValue());
        int bound = value.indexOf(BOUND);
        return bound < 0 ? value : value.substring(0, bound);
    }

    /** The session a lease key is bound to, or empty for a lease with a TTL of its own. */
    static String session(KeyValue lease) {
        String value = text(lease.getValue());
        int bound = value.indexOf(BOUND);
        return bound < 0 ? "" : value.substring(bound + 1);
    }

    /** The lease a lease key stands for, with {@code remaining}. */
    private static Lease lease(KeyValue key, Duration remaining) {
        return new Lease(owner(key), key.getCreateRevision(), remaining, session(key));
    }

    /** The lease key holds {@code nodeId} under {@code term} (a bound key holds more, so never matches). */
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

    /** Revokes the etcd lease of a deleted lease key unless it was a session's. */
    private void revokeOwnQuietly(KeyValue deleted) {
        if (session(deleted).isEmpty()) {
            revokeQuietly(deleted.getLease());
        }
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

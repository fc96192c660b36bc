package dev.baton.etcd.internal;

import static dev.baton.etcd.internal.GroupKeys.text;

import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.MemberNotice;
import dev.baton.core.store.SessionEndedException;
import dev.baton.core.store.SessionStore;
import dev.baton.core.store.Subscription;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Sessions on etcd: a session is one etcd lease, its id the lease's id in hex. Its key {@code P sessions/<id>} holds
 * the owner's node info on that etcd lease, so the key exists exactly while the session lives; the group leases bound
 * to it ({@link EtcdLeases}) and the groups it joined ({@code P G/session_members/<id>}, each holding the node info
 * stamped with the join time) sit on the same etcd lease, and etcd deletes all of them in the one step that ends it.
 * Expiry is etcd's alone, on its leader's clock; an ended etcd lease never comes back and etcd never hands its id out
 * again.
 *
 * <p>A keep-alive is one {@code LeaseKeepAlive} round trip (jetcd's {@code keepAliveOnce}; the caller drives
 * keep-alives, jetcd's own keep-alive stream is not used), whatever the number of groups bound. etcd cannot change a
 * lease's TTL, so a keep-alive restores the TTL the session was opened with (rounded up to whole seconds, as every
 * etcd TTL here), whatever TTL it names. Members' {@code registeredAt} is the writer's wall clock at the join, and
 * {@code lastSeen} the reader's wall clock less the time the session's etcd lease has run since its last keep-alive,
 * to etcd's whole second (as in {@link EtcdRegistry}, etcd has no clock a client can read).
 */
public final class EtcdSessions implements SessionStore {

    private final KV kv;
    private final Lease etcdLeases;
    private final EtcdWatches watches;
    private final String keyPrefix;
    private final EtcdCalls calls;
    private final Clock wallClock;
    private final EtcdLeases leases;

    /** @param leases the group leases, which take and release the leases bound to sessions */
    public EtcdSessions(Client client, EtcdWatches watches, String keyPrefix, EtcdCalls calls, Clock wallClock,
            EtcdLeases leases) {
        this.kv = client.getKVClient();
        this.etcdLeases = client.getLeaseClient();
        this.watches = watches;
        this.keyPrefix = keyPrefix;
        this.calls = calls;
        this.wallClock = wallClock;
        this.leases = leases;
    }

    /** The etcd lease id of {@code session}, or 0 for an id this store never gave out. */
    static long leaseId(String session) {
        try {
            return Long.parseUnsignedLong(session, 16);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String id(long leaseId) {
        return Long.toHexString(leaseId);
    }

    /** See {@link dev.baton.core.store.SessionStore#open}: a grant, then the session's key on it. */
    @Override
    public CompletableFuture<String> open(NodeInfo owner, Duration ttl) {
        return calls.guard("open session", () -> etcdLeases.grant(EtcdLeases.ttlSeconds(ttl)).thenCompose(grant -> {
            String session = id(grant.getID());
            NodeInfo stamped = owner.withTimes(wallClock.instant(), wallClock.instant());
            return kv.put(GroupKeys.session(keyPrefix, session), EtcdJson.node(stamped),
                    PutOption.builder().withLeaseId(grant.getID()).build()).thenApply(put -> session);
        }));
    }

    /** See {@link dev.baton.core.store.SessionStore#keepAlive}: one keep-alive of the etcd lease. */
    @Override
    public CompletableFuture<Boolean> keepAlive(String session, Duration ttl) {
        long leaseId = leaseId(session);
        if (leaseId == 0) {
            return CompletableFuture.completedFuture(false);
        }
        return calls.guard("keep session alive", () -> etcdLeases.keepAliveOnce(leaseId)
                .thenApply(response -> response.getTTL() > 0)
                .exceptionally(error -> {
                    if (notFound(error)) {
                        return false; // revoked or expired: etcd renews only a live lease
                    }
                    throw new java.util.concurrent.CompletionException(error);
                }));
    }

    /** See {@link dev.baton.core.store.SessionStore#close}: revokes the etcd lease, deleting every key on it. */
    @Override
    public CompletableFuture<Boolean> close(String session) {
        long leaseId = leaseId(session);
        if (leaseId == 0) {
            return CompletableFuture.completedFuture(false);
        }
        return calls.guard("close session", () -> etcdLeases.revoke(leaseId)
                .thenApply(revoked -> true)
                .exceptionally(error -> {
                    if (notFound(error)) {
                        return false;
                    }
                    throw new java.util.concurrent.CompletionException(error);
                }));
    }

    /**
     * See {@link dev.baton.core.store.SessionStore#remaining}: one {@code LeaseTimeToLive} per session, all sent at
     * once. etcd answers in whole seconds, rounded down, so half a second is added, capped at the granted TTL.
     */
    @Override
    public CompletableFuture<Map<String, Duration>> remaining(Set<String> sessions) {
        return calls.guard("read sessions", () -> {
            Map<String, CompletableFuture<Optional<Duration>>> asked = new HashMap<>();
            for (String session : sessions) {
                long leaseId = leaseId(session);
                asked.put(session, leaseId == 0 ? CompletableFuture.completedFuture(Optional.empty())
                        : etcdLeases.timeToLive(leaseId, LeaseOption.DEFAULT).thenApply(ttl -> {
                            if (ttl.getTTL() < 0) {
                                return Optional.<Duration>empty();
                            }
                            Duration left = Duration.ofSeconds(ttl.getTTL()).plusMillis(500);
                            Duration granted = Duration.ofSeconds(ttl.getGrantedTTL());
                            return Optional.of(left.compareTo(granted) > 0 ? granted : left);
                        }));
            }
            return CompletableFuture.allOf(asked.values().toArray(CompletableFuture[]::new)).thenApply(all -> {
                Map<String, Duration> alive = new HashMap<>();
                asked.forEach((session, answer) -> answer.join().ifPresent(left -> alive.put(session, left)));
                return alive;
            });
        });
    }

    /**
     * See {@link dev.baton.core.store.SessionStore#join}: the membership key, on the session's etcd lease, written
     * only while the session's key exists and only if it is not a member already (so it keeps its join time).
     */
    @Override
    public CompletableFuture<Void> join(String group, String session) {
        long leaseId = leaseId(session);
        if (leaseId == 0) {
            return CompletableFuture.failedFuture(new SessionEndedException(session));
        }
        ByteSequence sessionKey = GroupKeys.session(keyPrefix, session);
        ByteSequence member = GroupKeys.of(keyPrefix, group).sessionMember(session);
        return calls.guard("join group", () -> kv.get(sessionKey).thenCompose(get -> {
            Optional<KeyValue> owner = EtcdLeases.first(get);
            if (owner.isEmpty()) {
                return CompletableFuture.failedFuture(new SessionEndedException(session));
            }
            NodeInfo node = EtcdJson.node(owner.get().getValue(), Role.FOLLOWER);
            NodeInfo joined = node.withTimes(wallClock.instant(), wallClock.instant());
            return kv.txn()
                    .If(new Cmp(sessionKey, Cmp.Op.GREATER, CmpTarget.createRevision(0)),
                            new Cmp(member, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                    .Then(Op.put(member, EtcdJson.node(joined), PutOption.builder().withLeaseId(leaseId).build()))
                    .Else(Op.get(sessionKey, GetOption.DEFAULT))
                    .commit()
                    .thenCompose(txn -> txn.isSucceeded() || !txn.getGetResponses().get(0).getKvs().isEmpty()
                            ? CompletableFuture.<Void>completedFuture(null) // joined now, or a member already
                            : CompletableFuture.failedFuture(new SessionEndedException(session)));
        }));
    }

    /** See {@link dev.baton.core.store.SessionStore#leave}: deletes the membership of a live session. */
    @Override
    public CompletableFuture<Boolean> leave(String group, String session) {
        ByteSequence sessionKey = GroupKeys.session(keyPrefix, session);
        ByteSequence member = GroupKeys.of(keyPrefix, group).sessionMember(session);
        return calls.guard("leave group", () -> kv.txn()
                .If(new Cmp(sessionKey, Cmp.Op.GREATER, CmpTarget.createRevision(0)))
                .Then(Op.delete(member, DeleteOption.DEFAULT))
                .commit()
                .thenApply(txn -> txn.isSucceeded() && txn.getDeleteResponses().get(0).getDeleted() > 0));
    }

    /**
     * See {@link dev.baton.core.store.SessionStore#members}: the memberships and the lease key, read in one
     * transaction so the leader role matches the listing.
     */
    @Override
    public CompletableFuture<Map<String, NodeInfo>> members(String group) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        String prefix = text(keys.sessionMembers());
        return calls.guard("list session members", () -> kv.txn()
                .Then(Op.get(keys.sessionMembers(), GetOption.builder().isPrefix(true).build()),
                        Op.get(keys.lease(), GetOption.DEFAULT))
                .commit()
                .thenCompose(txn -> {
                    String leader = EtcdLeases.first(txn.getGetResponses().get(1)).map(EtcdLeases::owner).orElse(null);
                    Map<String, NodeInfo> joined = new HashMap<>();
                    for (KeyValue entry : txn.getGetResponses().get(0).getKvs()) {
                        NodeInfo node = EtcdJson.node(entry.getValue(), Role.FOLLOWER);
                        joined.put(GroupKeys.unescape(text(entry.getKey()).substring(prefix.length())),
                                node.withRole(node.id().equals(leader) ? Role.LEADER : Role.FOLLOWER));
                    }
                    return lastSeen(joined);
                }));
    }

    /**
     * The members stamped with when their sessions were last kept alive, in node id order: the wall clock now less
     * the time their etcd leases have run since (granted TTL less what is left, in etcd's whole seconds), asked for
     * all of them at once. A member whose session ended meanwhile is left out.
     */
    private CompletableFuture<Map<String, NodeInfo>> lastSeen(Map<String, NodeInfo> joined) {
        Map<String, CompletableFuture<Optional<NodeInfo>>> asked = new HashMap<>();
        joined.forEach((session, node) -> asked.put(session, etcdLeases.timeToLive(leaseId(session),
                LeaseOption.DEFAULT).thenApply(ttl -> {
                    if (ttl.getTTL() < 0) {
                        return Optional.<NodeInfo>empty();
                    }
                    java.time.Instant seen = wallClock.instant()
                            .minusSeconds(Math.max(0, ttl.getGrantedTTL() - ttl.getTTL() - 1));
                    return Optional.of(node.withTimes(node.registeredAt(), seen.isBefore(node.registeredAt())
                            ? node.registeredAt() : seen));
                })));
        return CompletableFuture.allOf(asked.values().toArray(CompletableFuture[]::new)).thenApply(all -> {
            List<Map.Entry<String, NodeInfo>> rows = new ArrayList<>();
            asked.forEach((session, answer) -> answer.join().ifPresent(node -> rows.add(Map.entry(session, node))));
            rows.sort(Map.Entry.comparingByValue(Comparator.comparing(NodeInfo::id)));
            Map<String, NodeInfo> bySession = new LinkedHashMap<>();
            rows.forEach(row -> bySession.put(row.getKey(), row.getValue()));
            return bySession;
        });
    }

    /** See {@link EtcdLeases#acquire(String, String, NodeInfo)}. */
    @Override
    public CompletableFuture<AcquireResult> acquire(String group, String session, NodeInfo candidate) {
        return leases.acquire(group, session, candidate);
    }

    /** See {@link EtcdLeases#releaseBound}. */
    @Override
    public CompletableFuture<Boolean> release(String group, String session, long term) {
        return leases.releaseBound(group, session, term);
    }

    /**
     * Sessions joining and leaving (or ending): creations and deletions of membership keys, named by the node id
     * their value (or, deleted, previous value) holds.
     */
    public Subscription watchMembers(String group, Consumer<MemberNotice> listener) {
        return watches.watch(GroupKeys.of(keyPrefix, group).sessionMembers(), true, event -> {
            if (event.getEventType() == WatchEvent.EventType.PUT && event.getKeyValue().getVersion() == 1) {
                listener.accept(new MemberNotice(MemberNotice.Kind.REGISTERED, nodeId(event.getKeyValue())));
            } else if (event.getEventType() == WatchEvent.EventType.DELETE && event.getPrevKV() != null
                    && event.getPrevKV().getCreateRevision() != 0) {
                listener.accept(new MemberNotice(MemberNotice.Kind.UNREGISTERED, nodeId(event.getPrevKV())));
            }
        });
    }

    private static String nodeId(KeyValue membership) {
        return EtcdJson.node(membership.getValue(), Role.FOLLOWER).id();
    }

    /** Whether etcd said the lease does not exist (revoked, or expired). */
    private static boolean notFound(Throwable error) {
        for (Throwable e = error; e != null; e = e.getCause()) {
            String message = e.getMessage();
            if (message != null && message.contains("lease not found")) {
                return true;
            }
            if (e.getCause() == e) {
                break;
            }
        }
        return false;
    }
}

package dev.baton.etcd.internal;

import static dev.baton.etcd.internal.GroupKeys.text;

import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.MemberNotice;
import dev.baton.core.store.Subscription;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process registry on etcd: one key per process, each attached to an etcd lease of the entry's TTL, so etcd
 * deletes an entry whose heartbeats stopped by its own clock and no sweeper is needed. A heartbeat moves the entry
 * to a fresh etcd lease (etcd cannot change a lease's TTL) in a transaction that checks the entry is still the one
 * read. etcd has no clock a client can read, so {@code registeredAt} and {@code lastSeen} are the writer's wall clock;
 * they are for people, and no decision depends on them.
 */
public final class EtcdRegistry {

    private static final Logger log = LoggerFactory.getLogger(EtcdRegistry.class);

    private final KV kv;
    private final Lease etcdLeases;
    private final EtcdWatches watches;
    private final String keyPrefix;
    private final EtcdCalls calls;
    private final Clock wallClock;

    public EtcdRegistry(Client client, EtcdWatches watches, String keyPrefix, EtcdCalls calls, Clock wallClock) {
        this.kv = client.getKVClient();
        this.etcdLeases = client.getLeaseClient();
        this.watches = watches;
        this.keyPrefix = keyPrefix;
        this.calls = calls;
        this.wallClock = wallClock;
    }

    public CompletableFuture<Void> register(String group, NodeInfo node, Duration ttl) {
        ByteSequence key = GroupKeys.of(keyPrefix, group).member(node.id());
        return calls.guard("register", () -> kv.get(key).thenCombine(etcdLeases.grant(EtcdLeases.ttlSeconds(ttl)),
                (existing, grant) -> {
                    Instant now = wallClock.instant();
                    Instant registeredAt = EtcdLeases.first(existing).map(kv -> decode(kv, Role.FOLLOWER))
                            .map(NodeInfo::registeredAt).orElse(now);
                    return kv.put(key, EtcdJson.node(node.withTimes(registeredAt, now)),
                            PutOption.builder().withLeaseId(grant.getID()).withPrevKV().build())
                            .thenApply(put -> {
                                if (put.hasPrevKv() && put.getPrevKv().getLease() != grant.getID()) {
                                    revokeQuietly(put.getPrevKv().getLease());
                                }
                                return (Void) null;
                            });
                }).thenCompose(f -> f));
    }

    public CompletableFuture<Boolean> heartbeat(String group, String nodeId, Duration ttl) {
        ByteSequence key = GroupKeys.of(keyPrefix, group).member(nodeId);
        return calls.guard("heartbeat", () -> kv.get(key).thenCompose(existing -> {
            Optional<KeyValue> entry = EtcdLeases.first(existing);
            if (entry.isEmpty()) {
                return CompletableFuture.completedFuture(false);
            }
            KeyValue current = entry.get();
            NodeInfo node = decode(current, Role.FOLLOWER);
            return etcdLeases.grant(EtcdLeases.ttlSeconds(ttl)).thenCompose(grant -> kv.txn()
                    .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(current.getModRevision())))
                    .Then(Op.put(key, EtcdJson.node(node.withTimes(node.registeredAt(), wallClock.instant())),
                            PutOption.builder().withLeaseId(grant.getID()).build()))
                    .Else(Op.get(key, GetOption.DEFAULT))
                    .commit()
                    .thenApply(txn -> {
                        if (txn.isSucceeded()) {
                            revokeQuietly(current.getLease());
                            return true;
                        }
                        // Someone else rewrote the entry meanwhile (a re-registration): it is live if it is there.
                        revokeQuietly(grant.getID());
                        return !txn.getGetResponses().get(0).getKvs().isEmpty();
                    }));
        }));
    }

    public CompletableFuture<Boolean> unregister(String group, String nodeId) {
        ByteSequence key = GroupKeys.of(keyPrefix, group).member(nodeId);
        return calls.guard("unregister", () -> kv.delete(key, DeleteOption.builder().withPrevKV(true).build())
                .thenApply(deleted -> {
                    deleted.getPrevKvs().forEach(kv -> revokeQuietly(kv.getLease()));
                    return deleted.getDeleted() > 0;
                }));
    }

    /** Every entry and the lease holder, read in one transaction so the roles match the listing. */
    public CompletableFuture<List<NodeInfo>> members(String group) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        return calls.guard("list members", () -> kv.txn()
                .Then(Op.get(keys.members(), GetOption.builder().isPrefix(true).build()),
                        Op.get(keys.lease(), GetOption.DEFAULT))
                .commit()
                .thenApply(txn -> {
                    String leader = holder(txn.getGetResponses().get(1));
                    List<NodeInfo> members = new ArrayList<>();
                    for (KeyValue entry : txn.getGetResponses().get(0).getKvs()) {
                        NodeInfo node = decodeOrNull(entry);
                        if (node != null) {
                            members.add(node.withRole(node.id().equals(leader) ? Role.LEADER : Role.FOLLOWER));
                        }
                    }
                    members.sort(Comparator.comparing(NodeInfo::id));
                    return members;
                }));
    }

    public CompletableFuture<Optional<NodeInfo>> member(String group, String nodeId) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        return calls.guard("read member", () -> kv.txn()
                .Then(Op.get(keys.member(nodeId), GetOption.DEFAULT), Op.get(keys.lease(), GetOption.DEFAULT))
                .commit()
                .thenApply(txn -> {
                    String leader = holder(txn.getGetResponses().get(1));
                    return EtcdLeases.first(txn.getGetResponses().get(0)).map(entry -> decode(entry,
                            nodeId.equals(leader) ? Role.LEADER : Role.FOLLOWER));
                }));
    }

    /** The process info the lease holder left at its grant, while its lease lives. */
    public CompletableFuture<Optional<NodeInfo>> leaderInfo(String group) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        return calls.guard("read leader info", () -> kv.txn()
                .Then(Op.get(keys.lease(), GetOption.DEFAULT), Op.get(keys.leaderProcess(), GetOption.DEFAULT))
                .commit()
                .thenApply(txn -> {
                    String leader = holder(txn.getGetResponses().get(0));
                    return EtcdLeases.first(txn.getGetResponses().get(1)).map(kv -> decode(kv, Role.LEADER))
                            .filter(info -> info.id().equals(leader));
                }));
    }

    /** Entries registered and unregistered (or expired): creations and deletions of entry keys. */
    public Subscription watchMembers(String group, Consumer<MemberNotice> listener) {
        GroupKeys keys = GroupKeys.of(keyPrefix, group);
        String prefix = text(keys.members());
        return watches.watch(keys.members(), true, event -> {
            String nodeId = GroupKeys.unescape(text(event.getKeyValue().getKey()).substring(prefix.length()));
            if (event.getEventType() == WatchEvent.EventType.PUT && event.getKeyValue().getVersion() == 1) {
                listener.accept(new MemberNotice(MemberNotice.Kind.REGISTERED, nodeId));
            } else if (event.getEventType() == WatchEvent.EventType.DELETE) {
                listener.accept(new MemberNotice(MemberNotice.Kind.UNREGISTERED, nodeId));
            }
        });
    }

    private static String holder(GetResponse lease) {
        return EtcdLeases.first(lease).map(EtcdLeases::owner).orElse(null);
    }

    private static NodeInfo decode(KeyValue entry, Role role) {
        return EtcdJson.node(entry.getValue(), role);
    }

    private static NodeInfo decodeOrNull(KeyValue entry) {
        try {
            return decode(entry, Role.FOLLOWER);
        } catch (IllegalArgumentException e) {
            log.warn("Skipping malformed registry entry {}: {}", text(entry.getKey()), e.getMessage());
            return null;
        }
    }

    private void revokeQuietly(long leaseId) {
        if (leaseId != 0) {
            etcdLeases.revoke(leaseId).exceptionally(e -> null);
        }
    }
}

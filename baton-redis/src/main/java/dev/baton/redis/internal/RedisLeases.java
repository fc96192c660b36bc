package dev.baton.redis.internal;

import static dev.baton.redis.internal.Replies.utf8;

import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The lease operations of the Redis store (DESIGN §3), each one atomic Lua script: {@code acquire.lua},
 * {@code renew.lua}, {@code release.lua}, {@code read.lua}. Expiry is Redis's own {@code PX}/{@code PTTL}; terms
 * come from the group's {@code term} counter. The scripts see leases bound to a session ({@link RedisSessions}) too:
 * such a lease lives as long as its session's key, and one of an ended session is free.
 */
public final class RedisLeases {

    private final ScriptRunner scripts;
    private final NodeInfoCodec codec;
    private final String keyPrefix;
    private final StoreFailures failures;
    private final ReplicaAcknowledgement acknowledgement;
    private final SessionKeys sessionKeys;

    /**
     * @param acknowledgement the replica wait applied after a granted acquire and a successful renew (it may wait for
     *                        none)
     * @param sessionKeys     where the scripts find the session a lease is bound to
     */
    public RedisLeases(ScriptRunner scripts, NodeInfoCodec codec, String keyPrefix, StoreFailures failures,
            ReplicaAcknowledgement acknowledgement, SessionKeys sessionKeys) {
        this.scripts = scripts;
        this.codec = codec;
        this.keyPrefix = keyPrefix;
        this.failures = failures;
        this.acknowledgement = acknowledgement;
        this.sessionKeys = sessionKeys;
    }

    /** See {@link dev.baton.core.store.LeaseStore#acquire}. */
    public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
        return failures.guard("acquire", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            CompletableFuture<AcquireResult> granted = scripts.<List<Object>>run(Scripts.ACQUIRE,
                    ScriptOutputType.MULTI, acquireKeys(k),
                    utf8(candidate.id()), utf8(millis(ttl)), codec.encode(candidate.withRole(Role.LEADER)),
                    utf8(k.noticesChannel()), utf8(sessionKeys.sessionsFor(k)))
                    .thenApply(RedisLeases::acquireResult);
            return acknowledgement.await("acquire", k.master(), granted,
                    result -> result instanceof AcquireResult.Granted);
        });
    }

    /** See {@link dev.baton.core.store.LeaseStore#renew}. */
    public CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl) {
        return failures.guard("renew", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            String[] keys = {k.master(), k.masterTerm(), k.heartbeat(), k.masterProcess(), k.masterSession()};
            CompletableFuture<Boolean> renewed = scripts.<Long>run(Scripts.RENEW, ScriptOutputType.INTEGER, keys,
                    utf8(nodeId), utf8(Long.toString(term)), utf8(millis(ttl)))
                    .thenApply(reply -> reply == 1L);
            return acknowledgement.await("renew", k.master(), renewed, Boolean::booleanValue);
        });
    }

    /** See {@link dev.baton.core.store.LeaseStore#release}. */
    public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
        return release(group, Holder.NODE, nodeId, term);
    }

    /** Who a release names as the lease's holder. */
    enum Holder {
        /** The holder's node id: a lease of either kind ({@link dev.baton.core.store.LeaseStore#release}). */
        NODE,
        /** The id of the session the lease is bound to ({@link dev.baton.core.store.SessionStore#release}). */
        SESSION
    }

    /** Releases the group's live lease iff {@code holder} holds it under {@code term}: one {@code release.lua}. */
    CompletableFuture<Boolean> release(String group, Holder kind, String holder, long term) {
        return failures.guard("release", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            String[] keys = {k.master(), k.masterTerm(), k.heartbeat(), k.masterProcess(), k.masterSession()};
            return scripts.<Long>run(Scripts.RELEASE, ScriptOutputType.INTEGER, keys,
                    utf8(holder), utf8(Long.toString(term)), utf8(k.noticesChannel()),
                    utf8(sessionKeys.sessionsFor(k)), utf8(kind.name().toLowerCase(Locale.ROOT)))
                    .thenApply(released -> released == 1L);
        });
    }

    /** See {@link dev.baton.core.store.LeaseStore#read}. */
    public CompletableFuture<Optional<Lease>> read(String group) {
        return failures.guard("read lease", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<List<Object>>run(Scripts.READ, ScriptOutputType.MULTI,
                    new String[] {k.master(), k.masterTerm(), k.masterSession()}, utf8(sessionKeys.sessionsFor(k)))
                    .thenApply(reply -> reply.isEmpty() ? Optional.<Lease>empty() : Optional.of(lease(reply, 0)));
        });
    }

    /** The keys {@code acquire.lua} and {@code session_acquire.lua} start with, in their order. */
    static String[] acquireKeys(GroupKeys k, String... more) {
        String[] keys = {k.master(), k.masterTerm(), k.heartbeat(), k.masterProcess(), k.term(), k.masterSession()};
        String[] all = Arrays.copyOf(keys, keys.length + more.length);
        System.arraycopy(more, 0, all, keys.length, more.length);
        return all;
    }

    /** The reply of {@code acquire.lua} or {@code session_acquire.lua} (lib.lua's {@code acquire_lease}). */
    static AcquireResult acquireResult(List<Object> reply) {
        if (Replies.number(reply.get(0)) == 1L) {
            return new AcquireResult.Granted(Replies.number(reply.get(1)));
        }
        return new AcquireResult.Denied(lease(reply, 1));
    }

    /** The lease lib.lua's {@code lease_reply} wrote at {@code from}: owner, term, remaining ms, session or ''. */
    private static Lease lease(List<Object> reply, int from) {
        // PTTL is -1 for a key without expiry (a master key not written by Baton); report it as expiring now.
        long remaining = Math.max(0, Replies.number(reply.get(from + 2)));
        return new Lease(Replies.text(reply.get(from)), Replies.number(reply.get(from + 1)),
                Duration.ofMillis(remaining), Replies.text(reply.get(from + 3)));
    }

    static String millis(Duration ttl) {
        return Long.toString(Math.max(1, ttl.toMillis()));
    }
}

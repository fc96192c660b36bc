package dev.baton.redis.internal;

import static dev.baton.redis.internal.Replies.utf8;

import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The lease operations of the Redis store (DESIGN §3), each one atomic Lua script: {@code acquire.lua},
 * {@code renew.lua}, {@code release.lua}, {@code read.lua}. Expiry is Redis's own {@code PX}/{@code PTTL}; terms
 * come from the group's {@code term} counter.
 */
public final class RedisLeases {

    private final ScriptRunner scripts;
    private final NodeInfoCodec codec;
    private final String keyPrefix;
    private final StoreFailures failures;
    private final ReplicaAcknowledgement acknowledgement;

    /**
     * @param acknowledgement the replica wait applied after a granted acquire and a successful renew (it may wait for
     *                        none)
     */
    public RedisLeases(ScriptRunner scripts, NodeInfoCodec codec, String keyPrefix, StoreFailures failures,
            ReplicaAcknowledgement acknowledgement) {
        this.scripts = scripts;
        this.codec = codec;
        this.keyPrefix = keyPrefix;
        this.failures = failures;
        this.acknowledgement = acknowledgement;
    }

    /** See {@link dev.baton.core.store.LeaseStore#acquire}. */
    public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
        return failures.guard("acquire", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            String[] keys = {k.master(), k.masterTerm(), k.heartbeat(), k.masterProcess(), k.term()};
            CompletableFuture<AcquireResult> granted = scripts.<List<Object>>run(Scripts.ACQUIRE, ScriptOutputType.MULTI, keys,
                    utf8(candidate.id()), utf8(millis(ttl)), codec.encode(candidate.withRole(Role.LEADER)),
                    utf8(k.noticesChannel()))
                    .thenApply(RedisLeases::acquireResult);
            return acknowledgement.await("acquire", k.master(), granted,
                    result -> result instanceof AcquireResult.Granted);
        });
    }

    /** See {@link dev.baton.core.store.LeaseStore#renew}. */
    public CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl) {
        return failures.guard("renew", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            String[] keys = {k.master(), k.masterTerm(), k.heartbeat(), k.masterProcess()};
            CompletableFuture<Boolean> renewed = scripts.<Long>run(Scripts.RENEW, ScriptOutputType.INTEGER, keys,
                    utf8(nodeId), utf8(Long.toString(term)), utf8(millis(ttl)))
                    .thenApply(reply -> reply == 1L);
            return acknowledgement.await("renew", k.master(), renewed, Boolean::booleanValue);
        });
    }

    /** See {@link dev.baton.core.store.LeaseStore#release}. */
    public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
        return failures.guard("release", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            String[] keys = {k.master(), k.masterTerm(), k.heartbeat(), k.masterProcess()};
            return scripts.<Long>run(Scripts.RELEASE, ScriptOutputType.INTEGER, keys,
                    utf8(nodeId), utf8(Long.toString(term)), utf8(k.noticesChannel()))
                    .thenApply(released -> released == 1L);
        });
    }

    /** See {@link dev.baton.core.store.LeaseStore#read}. */
    public CompletableFuture<Optional<Lease>> read(String group) {
        return failures.guard("read lease", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<List<Object>>run(Scripts.READ, ScriptOutputType.MULTI,
                    new String[] {k.master(), k.masterTerm()})
                    .thenApply(reply -> reply.isEmpty()
                            ? Optional.<Lease>empty()
                            : Optional.of(lease(reply.get(0), reply.get(1), reply.get(2))));
        });
    }

    private static AcquireResult acquireResult(List<Object> reply) {
        if (Replies.number(reply.get(0)) == 1L) {
            return new AcquireResult.Granted(Replies.number(reply.get(1)));
        }
        return new AcquireResult.Denied(lease(reply.get(1), reply.get(2), reply.get(3)));
    }

    private static Lease lease(Object owner, Object term, Object remainingMillis) {
        // PTTL is -1 for a master key without expiry (not written by Baton); report it as expiring now.
        long remaining = Math.max(0, Replies.number(remainingMillis));
        return new Lease(Replies.text(owner), Replies.number(term), Duration.ofMillis(remaining));
    }

    static String millis(Duration ttl) {
        return Long.toString(Math.max(1, ttl.toMillis()));
    }
}

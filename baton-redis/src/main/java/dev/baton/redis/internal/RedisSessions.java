package dev.baton.redis.internal;

import static dev.baton.redis.internal.Replies.utf8;

import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.SessionEndedException;
import dev.baton.core.store.StoreException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sessions of the Redis store ({@link dev.baton.core.store.SessionStore}): one key per session with the session's
 * TTL ({@link SessionKeys}), kept alive by one script call per renew interval however many group leases are bound to
 * it. A bound lease is the group's usual lease keys without TTL plus {@code master_session} naming the session; every
 * script that judges a lease counts it live only while the session's key exists (lib.lua's {@code live_lease}), so
 * when the session ends every lease bound to it is free at once, without a write per group.
 *
 * <p>On a Redis Cluster a group's script reaches only its slot, so the first acquire or join of a session in a slot
 * reads the session's own key and has the script create a copy of it there, with the TTL the session had then; keeping
 * the session alive extends its key and every copy this client made (one pipelined batch, one command per slot in
 * use), and closing it deletes them all. A copy that is gone while its session is kept alive means the session ended
 * in that slot, so {@link #keepAlive} then ends it everywhere and answers false.
 */
public final class RedisSessions {

    private static final Logger log = LoggerFactory.getLogger(RedisSessions.class);
    /** The copy arguments of a script that needs the session's key to exist where it runs (lib.lua's session_here). */
    private static final byte[][] NO_COPY = {utf8(""), utf8(""), utf8(""), utf8("")};

    private final ScriptRunner scripts;
    private final RedisClusterAsyncCommands<String, byte[]> commands;
    private final NodeInfoCodec codec;
    private final String keyPrefix;
    private final StoreFailures failures;
    private final ReplicaAcknowledgement acknowledgement;
    private final SessionKeys keys;
    private final RedisLeases leases;
    private final SessionCopies copies = new SessionCopies();

    /**
     * @param acknowledgement the replica wait applied after opening, keeping alive and a granted acquire
     * @param leases          the lease operations, whose release also releases bound leases
     */
    public RedisSessions(ScriptRunner scripts, RedisClusterAsyncCommands<String, byte[]> commands, NodeInfoCodec codec,
            String keyPrefix, StoreFailures failures, ReplicaAcknowledgement acknowledgement, SessionKeys keys,
            RedisLeases leases) {
        this.scripts = scripts;
        this.commands = commands;
        this.codec = codec;
        this.keyPrefix = keyPrefix;
        this.failures = failures;
        this.acknowledgement = acknowledgement;
        this.keys = keys;
        this.leases = leases;
    }

    /** See {@link dev.baton.core.store.SessionStore#open}: a random UUID, so no id is given out twice. */
    public CompletableFuture<String> open(NodeInfo owner, Duration ttl) {
        return failures.guard("open session", () -> {
            String id = UUID.randomUUID().toString();
            String key = keys.session(id);
            CompletableFuture<String> opened = scripts.<Long>run(Scripts.SESSION_OPEN, ScriptOutputType.INTEGER,
                    new String[] {key}, utf8(owner.id()), codec.encode(owner), utf8(RedisLeases.millis(ttl)))
                    .thenApply(created -> {
                        if (created != 1L) {
                            throw new StoreException("session key " + key + " exists already");
                        }
                        return id;
                    });
            return acknowledgement.await("open session", key, opened, written -> true);
        });
    }

    /** See {@link dev.baton.core.store.SessionStore#keepAlive}: one script call per key, pipelined. */
    public CompletableFuture<Boolean> keepAlive(String session, Duration ttl) {
        return failures.guard("keep session alive", () -> {
            String own = keys.session(session);
            List<String> all = new ArrayList<>();
            all.add(own);
            all.addAll(copies.of(session));
            List<CompletableFuture<Long>> calls = all.stream().map(key -> scripts.<Long>run(
                    Scripts.SESSION_KEEP_ALIVE, ScriptOutputType.INTEGER, new String[] {key},
                    utf8(RedisLeases.millis(ttl)))).toList();
            CompletableFuture<Boolean> alive = CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                    .thenCompose(done -> calls.stream().allMatch(call -> call.join() == 1L)
                            ? CompletableFuture.completedFuture(true)
                            : end(session).thenApply(ended -> false));
            return acknowledgement.await("keep session alive", own, alive, Boolean::booleanValue);
        });
    }

    /** See {@link dev.baton.core.store.SessionStore#close}: deletes the session's key and every copy of it. */
    public CompletableFuture<Boolean> close(String session) {
        return failures.guard("close session", () -> end(session));
    }

    /** See {@link dev.baton.core.store.SessionStore#remaining}: one {@code PTTL} per session, pipelined. */
    public CompletableFuture<Map<String, Duration>> remaining(Set<String> sessions) {
        return failures.guard("read session times", () -> {
            Map<String, CompletableFuture<Long>> calls = new HashMap<>();
            for (String session : sessions) {
                calls.put(session, commands.pttl(keys.session(session)).toCompletableFuture());
            }
            return CompletableFuture.allOf(calls.values().toArray(CompletableFuture[]::new)).thenApply(done -> {
                Map<String, Duration> alive = new HashMap<>();
                calls.forEach((session, call) -> {
                    long millis = call.join(); // -2: gone; -1 (no TTL) is not a key Baton wrote
                    if (millis > 0) {
                        alive.put(session, Duration.ofMillis(millis));
                    }
                });
                return alive;
            });
        });
    }

    /** See {@link dev.baton.core.store.SessionStore#acquire}: one {@code session_acquire.lua}. */
    public CompletableFuture<AcquireResult> acquire(String group, String session, NodeInfo candidate) {
        return failures.guard("acquire", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            String here = keys.sessionIn(k, session);
            byte[][] head = {utf8(candidate.id()), codec.encode(candidate.withRole(Role.LEADER)),
                    utf8(k.noticesChannel()), utf8(keys.sessionsFor(k)), utf8(session)};
            CompletableFuture<AcquireResult> result = this.<List<Object>>whereAlive(session, here,
                    copy -> scripts.run(Scripts.SESSION_ACQUIRE, ScriptOutputType.MULTI,
                            RedisLeases.acquireKeys(k, here), concat(head, copy)),
                    reply -> Replies.number(reply.get(0)) == -1L)
                    .thenApply(RedisLeases::acquireResult);
            return acknowledgement.await("acquire", k.master(), result,
                    acquired -> acquired instanceof AcquireResult.Granted);
        });
    }

    /** See {@link dev.baton.core.store.SessionStore#release}: {@code release.lua}, naming the session. */
    public CompletableFuture<Boolean> release(String group, String session, long term) {
        return leases.release(group, RedisLeases.Holder.SESSION, session, term);
    }

    /** See {@link dev.baton.core.store.SessionStore#join}: one {@code session_join.lua}. */
    public CompletableFuture<Void> join(String group, String session) {
        return failures.guard("join", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            String here = keys.sessionIn(k, session);
            byte[][] head = {utf8(session), utf8(k.membersChannel())};
            return this.<Long>whereAlive(session, here,
                    copy -> scripts.run(Scripts.SESSION_JOIN, ScriptOutputType.INTEGER,
                            new String[] {k.sessionMembers(), here}, concat(head, copy)),
                    joined -> joined == -1L)
                    .thenApply(joined -> null);
        });
    }

    /** See {@link dev.baton.core.store.SessionStore#leave}: one {@code session_leave.lua}. */
    public CompletableFuture<Boolean> leave(String group, String session) {
        return failures.guard("leave", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<Long>run(Scripts.SESSION_LEAVE, ScriptOutputType.INTEGER,
                    new String[] {k.sessionMembers(), keys.sessionIn(k, session)}, utf8(session),
                    utf8(k.membersChannel()))
                    .thenApply(left -> left == 1L);
        });
    }

    /** See {@link dev.baton.core.store.SessionStore#members}: one {@code session_members.lua}. */
    public CompletableFuture<Map<String, NodeInfo>> members(String group) {
        return failures.guard("list session members", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<List<Object>>run(Scripts.SESSION_MEMBERS, ScriptOutputType.MULTI,
                    new String[] {k.sessionMembers(), k.master(), k.masterSession()}, utf8(keys.sessionsFor(k)))
                    .thenApply(reply -> members(group, reply));
        });
    }

    /**
     * Runs {@code script}, which needs the session's key where it runs ({@code here}, lib.lua's
     * {@code session_here}), with the copy arguments it needs: none on one server or where this client made the copy
     * already, else the session's fields read from its own key, failing with {@link SessionEndedException} if that
     * is gone. A reply that {@code ended} says so fails the same way; otherwise a copy is recorded for
     * {@link #keepAlive}.
     */
    private <R> CompletableFuture<R> whereAlive(String session, String here,
            Function<byte[][], CompletableFuture<R>> script, Predicate<R> ended) {
        return copyArguments(session, here).thenCompose(script).thenApply(reply -> {
            if (ended.test(reply)) {
                throw new SessionEndedException(session);
            }
            if (keys.copies()) {
                copies.add(session, here);
            }
            return reply;
        });
    }

    private CompletableFuture<byte[][]> copyArguments(String session, String here) {
        if (!keys.copies() || copies.has(session, here)) {
            return CompletableFuture.completedFuture(NO_COPY);
        }
        return scripts.<List<Object>>run(Scripts.SESSION_READ, ScriptOutputType.MULTI,
                new String[] {keys.session(session)})
                .thenApply(reply -> {
                    if (reply.isEmpty()) {
                        throw new SessionEndedException(session);
                    }
                    return new byte[][] {utf8(Long.toString(Replies.number(reply.get(0)))),
                            utf8(Replies.text(reply.get(1))), utf8(Replies.text(reply.get(2))),
                            utf8(Replies.text(reply.get(3)))};
                });
    }

    /** Deletes the session's key and every copy this client made; completes with whether its own key existed. */
    private CompletableFuture<Boolean> end(String session) {
        CompletableFuture<Long> own = commands.del(keys.session(session)).toCompletableFuture();
        CompletableFuture<?>[] rest = copies.forget(session).stream()
                .map(copy -> commands.del(copy).toCompletableFuture()).toArray(CompletableFuture[]::new);
        return own.thenCombine(CompletableFuture.allOf(rest), (deleted, done) -> deleted == 1L);
    }

    /**
     * The {@code session_members.lua} reply as members by session id, iterating in node id order (then session id,
     * for one node under two sessions), the lease holder marked leader.
     */
    private Map<String, NodeInfo> members(String group, List<Object> reply) {
        String holder = reply.get(0) == null ? null : Replies.text(reply.get(0));
        List<Map.Entry<String, NodeInfo>> live = new ArrayList<>();
        for (int i = 1; i + 3 < reply.size(); i += 4) {
            String session = Replies.text(reply.get(i));
            NodeInfo node;
            try {
                node = codec.decode(utf8(Replies.text(reply.get(i + 1))));
            } catch (IllegalArgumentException e) {
                log.warn("Skipping unreadable session {} of group {}: {}", session, group, e.getMessage());
                continue;
            }
            Instant joined = IsoInstants.parse(Replies.text(reply.get(i + 2)));
            Instant lastSeen = IsoInstants.parse(Replies.text(reply.get(i + 3)));
            live.add(Map.entry(session, node.withTimes(joined, lastSeen)
                    .withRole(node.id().equals(holder) ? Role.LEADER : Role.FOLLOWER)));
        }
        live.sort(Comparator.comparing((Map.Entry<String, NodeInfo> e) -> e.getValue().id())
                .thenComparing(Map.Entry::getKey));
        Map<String, NodeInfo> ordered = new LinkedHashMap<>();
        live.forEach(e -> ordered.put(e.getKey(), e.getValue()));
        return ordered;
    }

    private static byte[][] concat(byte[][] head, byte[][] tail) {
        byte[][] all = new byte[head.length + tail.length][];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }
}

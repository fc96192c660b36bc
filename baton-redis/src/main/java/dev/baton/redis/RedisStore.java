package dev.baton.redis;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.ClusterEvent;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.EventLogStore;
import dev.baton.core.store.FencedMapStore;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedStore;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.store.LeaderRecordWrite;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.LeaseStore;
import dev.baton.core.store.MemberNotice;
import dev.baton.core.store.MessageBus;
import dev.baton.core.store.RegistryStore;
import dev.baton.core.store.SessionStore;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.Subscription;
import dev.baton.redis.internal.ChannelRouter;
import dev.baton.redis.internal.ClusterConnections;
import dev.baton.redis.internal.GroupKeys;
import dev.baton.redis.internal.LettuceConnections;
import dev.baton.redis.internal.NodeInfoCodec;
import dev.baton.redis.internal.RedisConnections;
import dev.baton.redis.internal.RedisEventLog;
import dev.baton.redis.internal.RedisFencedMaps;
import dev.baton.redis.internal.RedisFencing;
import dev.baton.redis.internal.RedisLeaderRecords;
import dev.baton.redis.internal.RedisLeases;
import dev.baton.redis.internal.RedisRegistry;
import dev.baton.redis.internal.RedisSessions;
import dev.baton.redis.internal.ReplicaAcknowledgement;
import dev.baton.redis.internal.ScriptRunner;
import dev.baton.redis.internal.Scripts;
import dev.baton.redis.internal.SessionKeys;
import dev.baton.redis.internal.StoreFailures;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link CoordinationStore} on Redis 6.2 or later (seed 000's MasterElection layout, made safe): every lease and
 * registry operation is one atomic Lua script that reads the time from Redis itself ({@code TIME}, {@code PX}), so
 * no decision ever compares two machines' clocks.
 *
 * <p><b>Layout.</b> Group {@code G} lives under the hash tag {@code {<keyPrefix>G}}: {@code :master} (leader's node
 * id), {@code :master_term}, {@code :heartbeat} and {@code :master_process} (all with the lease TTL), {@code :term}
 * (the term counter), {@code :processes} with {@code :processes:expiry}, {@code :fenced:<register>},
 * {@code :map:<name>} (a hash per fenced map), {@code :events} with {@code :events:seq} (the event log, a list of
 * JSON newest first, and its id counter) and {@code :leader} (the leader record, a hash). A lease bound to a
 * {@linkplain #sessions() session} has no TTL and {@code :master_session} names the session, whose key is
 * {@code <keyPrefix>session:<id>}; the sessions that joined the group are in {@code :session_members}. Lease and member
 * notices are published on {@code {…}:notices} and
 * {@code {…}:members}; {@linkplain MessageBus#subscribe message} channels are {@code <keyPrefix><channel>}, so seed
 * channels such as
 * {@code worker:slave:<id>} keep their names.
 *
 * <p><b>Terms survive data loss, and a Redis that comes back older.</b> Every grant issues
 * {@code term = max(counter + 1, TIME in microseconds)} and stores it in the counter. So a term stays above every term
 * issued before even when the counter is missing (a new group, a Redis without persistence that restarted or was
 * flushed) or restored too low (an RDB snapshot, an AOF that lost its last second, a promoted replica that lagged),
 * provided the group averaged fewer than one acquisition per microsecond since its counter was first seeded from the
 * clock and the server's clock did not step back across the loss (see {@code docs/architecture.md}). Fenced
 * registers and maps accept only the newest issued term, so a write under a term the restored state lost is refused.
 * Terms are handled as exact decimal text in the scripts. Run Redis with an eviction policy that never evicts keys
 * without TTL ({@code noeviction} or {@code volatile-*}), since an evicted counter is data loss too.
 *
 * <p><b>Sentinel.</b> With a {@code redis-sentinel://} URI the store asks the Sentinels for the primary at connect
 * and again on every reconnect of either connection; the pub/sub connection subscribes to its channels again after
 * it reconnected. A failover closes the clients of the old primary (Sentinel reconfigures it as a replica and drops
 * its clients), so both connections move to the new primary. Replication is asynchronous: see
 * {@code docs/redis-sentinel.md} and {@link RedisStoreOptions.Builder#waitReplicas} for what a lease promises
 * across a failover.
 *
 * <p><b>Cluster.</b> With a {@code redis-cluster://} URI the store discovers a Redis Cluster (Redis 7 or later) from
 * the seed nodes. Every key of a group carries the group's hash tag, so every script runs on the one master that
 * serves the group's slot; the store follows {@code MOVED}/{@code ASK} and refreshes the topology (on redirections,
 * reconnects and every second), so it follows failovers and slot migrations. Notices and bus messages go over sharded
 * pub/sub ({@code SPUBLISH}/{@code SSUBSCRIBE}) to the master of each channel's slot. See
 * {@code docs/redis-cluster.md}.
 *
 * <p><b>Failures.</b> Methods never block: they return futures completed on the store's Lettuce I/O thread. A
 * command fails with {@link dev.baton.core.store.StoreTimeoutException} after
 * {@link RedisStoreOptions#commandTimeout()}, and at once with {@link StoreException} while Redis is unreachable
 * (commands are rejected, not queued); the connection reconnects by itself. Scripts are loaded at connect and
 * reloaded if the server forgot them ({@code NOSCRIPT}).
 *
 * <p><b>Threads.</b> Each store owns its Lettuce resources (one I/O thread shared by both connections, and two
 * computation threads) and shuts them down in {@link #close()}. Message and notice handlers run on the I/O thread and
 * must not block.
 */
public final class RedisStore implements CoordinationStore {

    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);

    private final RedisStoreOptions options;
    private final String description;
    private final RedisConnections connections;
    private final StoreFailures failures;
    private final RedisLeases leases;
    private final RedisRegistry registry;
    private final RedisFencing fencing;
    private final RedisFencedMaps maps;
    private final RedisEventLog events;
    private final RedisLeaderRecords leaderRecords;
    private final RedisSessions sessions;
    private final ChannelRouter router;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final LeaseStore leasesRole = new LeasesRole();
    private final RegistryStore registryRole = new RegistryRole();
    private final FencedStore registersRole = new RegistersRole();
    private final FencedMapStore mapsRole = new MapsRole();
    private final EventLogStore eventsRole = new EventsRole();
    private final MessageBus busRole = new BusRole();
    private final LeaderRecordStore leaderRecordsRole = new LeaderRecordsRole();
    private final Optional<SessionStore> sessionsRole = Optional.of(new SessionsRole());

    private RedisStore(RedisStoreOptions options, RedisConnections connections) {
        this.options = options;
        this.description = options.describe();
        this.connections = connections;
        this.failures = new StoreFailures(description, options.commandTimeout());
        RedisClusterAsyncCommands<String, byte[]> commands = connections.commands();
        ScriptRunner scripts = new ScriptRunner(commands, connections.sharded());
        NodeInfoCodec codec = new NodeInfoCodec();
        ReplicaAcknowledgement acknowledgement = new ReplicaAcknowledgement(connections, options.waitReplicas(),
                options.waitReplicasTimeout(), description);
        SessionKeys sessionKeys = new SessionKeys(options.keyPrefix(), connections.sharded());
        this.leases = new RedisLeases(scripts, codec, options.keyPrefix(), failures, acknowledgement, sessionKeys);
        this.registry = new RedisRegistry(scripts, commands, codec, options.keyPrefix(), failures, sessionKeys);
        this.fencing = new RedisFencing(scripts, commands, options.keyPrefix(), failures, acknowledgement);
        this.maps = new RedisFencedMaps(scripts, commands, options.keyPrefix(), failures, acknowledgement);
        this.events = new RedisEventLog(scripts, options.keyPrefix(), options.eventRetention(), failures);
        this.leaderRecords = new RedisLeaderRecords(scripts, commands, options.keyPrefix(), failures,
                acknowledgement);
        this.sessions = new RedisSessions(scripts, commands, codec, options.keyPrefix(), failures, acknowledgement,
                sessionKeys, leases);
        this.router = connections.router(failures);
    }

    /**
     * Connects to {@code uri} with default options: {@code redis://[:password@]host[:port][/db]}, {@code rediss://…},
     * {@code redis-sentinel://[password@]host:port[,host:port…][/db]#masterName} (also
     * {@code ?sentinelMasterId=masterName}) to reach the primary a set of Redis Sentinels names, or
     * {@code redis-cluster://[password@]host:port[,host:port…]} for a Redis Cluster found from those seed nodes.
     *
     * @throws StoreException if Redis cannot be reached or refuses the connection
     */
    public static RedisStore connect(String uri) {
        return connect(RedisStoreOptions.builder().uri(uri).build());
    }

    /**
     * Connects, checks the server answers {@code PING} and loads the Lua scripts. Blocks for at most a few
     * timeouts; this is the only blocking call of the store besides {@link #close()}.
     *
     * @throws StoreException {@code cannot reach Redis at redis://host:port/db: <reason>} (never with the password)
     * @throws IllegalArgumentException if the URI is malformed
     */
    public static RedisStore connect(RedisStoreOptions options) {
        String target = options.describe();
        RedisConnections connections;
        try {
            connections = options.usesCluster()
                    ? ClusterConnections.open(options.clusterSeeds(), options.commandTimeout(),
                            options.connectTimeout())
                    : LettuceConnections.open(options.redisUri(), options.commandTimeout(),
                            options.connectTimeout());
        } catch (RuntimeException e) {
            throw new StoreException("cannot reach Redis at " + target + ": " + StoreFailures.shortReason(e), e);
        }
        try {
            RedisClusterAsyncCommands<String, byte[]> commands = connections.commands();
            long wait = options.commandTimeout().toMillis() * 2;
            commands.ping().toCompletableFuture().get(wait, TimeUnit.MILLISECONDS);
            new ScriptRunner(commands, connections.sharded()).loadAll(Scripts.ALL).get(wait, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            connections.close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new StoreException("cannot reach Redis at " + target + ": " + StoreFailures.shortReason(e), e);
        }
        log.debug("Connected to {}", target);
        return new RedisStore(options, connections);
    }

    @Override
    public LeaseStore leases() {
        return leasesRole;
    }

    @Override
    public RegistryStore registry() {
        return registryRole;
    }

    @Override
    public FencedStore registers() {
        return registersRole;
    }

    @Override
    public FencedMapStore maps() {
        return mapsRole;
    }

    @Override
    public EventLogStore events() {
        return eventsRole;
    }

    @Override
    public MessageBus bus() {
        return busRole;
    }

    @Override
    public LeaderRecordStore leaderRecords() {
        return leaderRecordsRole;
    }

    /**
     * Sessions: a key per session with the session's TTL, and group leases bound to it that carry no TTL of their own
     * (see {@code docs/architecture.md}, "Redis layout"). Keeping a session alive is one command on one server or
     * Sentinel, one per slot in use on a cluster, however many groups it holds.
     */
    @Override
    public Optional<SessionStore> sessions() {
        return sessionsRole;
    }

    /**
     * {@code redis://host:port/db}, {@code redis-sentinel://host:port,…/db#masterName} or
     * {@code redis-cluster://host:port,…}, without credentials.
     */
    @Override
    public String describe() {
        return description;
    }

    /** Closes both connections and shuts down the store's Lettuce threads. Idempotent; blocks up to a few seconds. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                router.close();
            } finally {
                connections.close();
            }
        }
    }

    @Override
    public String toString() {
        return "RedisStore{" + description + ", keyPrefix='" + options.keyPrefix() + "'}";
    }

    private <T> CompletableFuture<T> call(String operation, Supplier<CompletableFuture<T>> body) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new StoreException(operation + " on " + description
                    + " failed: the store is closed"));
        }
        return body.get();
    }

    private static <T> Consumer<byte[]> decoding(String what, Function<String, T> decoder, Consumer<T> listener) {
        return message -> {
            String text = new String(message, StandardCharsets.UTF_8);
            T notice;
            try {
                notice = decoder.apply(text);
            } catch (IllegalArgumentException e) {
                log.warn("Dropping malformed {}: {}", what, e.getMessage());
                return;
            }
            listener.accept(notice);
        };
    }

    /** The lease role: one Lua script per operation. */
    private final class LeasesRole implements LeaseStore {

        @Override
        public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
            return call("acquire", () -> leases.acquire(group, candidate, ttl));
        }

        @Override
        public CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl) {
            return call("renew", () -> leases.renew(group, nodeId, term, ttl));
        }

        @Override
        public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
            return call("release", () -> leases.release(group, nodeId, term));
        }

        @Override
        public CompletableFuture<Optional<Lease>> read(String group) {
            return call("read lease", () -> leases.read(group));
        }

        /** Lease notices arrive from the group's {@code {…}:notices} channel; malformed ones are logged and dropped. */
        @Override
        public Subscription watch(String group, Consumer<LeaseNotice> listener) {
            return router.subscribe(GroupKeys.of(options.keyPrefix(), group).noticesChannel(),
                    decoding("lease notice", LeaseNotice::decode, listener));
        }
    }

    /** The registry role: a hash beside an expiry sorted set. */
    private final class RegistryRole implements RegistryStore {

        @Override
        public CompletableFuture<Void> register(String group, NodeInfo node, Duration ttl) {
            return call("register", () -> registry.register(group, node, ttl));
        }

        @Override
        public CompletableFuture<Boolean> heartbeat(String group, String nodeId, Duration ttl) {
            return call("heartbeat", () -> registry.heartbeat(group, nodeId, ttl));
        }

        @Override
        public CompletableFuture<Boolean> unregister(String group, String nodeId) {
            return call("unregister", () -> registry.unregister(group, nodeId));
        }

        @Override
        public CompletableFuture<List<NodeInfo>> members(String group) {
            return call("list members", () -> registry.members(group));
        }

        @Override
        public CompletableFuture<Optional<NodeInfo>> member(String group, String nodeId) {
            return call("read member", () -> registry.member(group, nodeId));
        }

        @Override
        public CompletableFuture<Optional<NodeInfo>> leaderInfo(String group) {
            return call("read leader info", () -> registry.leaderInfo(group));
        }

        @Override
        public CompletableFuture<List<String>> sweepExpired(String group) {
            return call("sweep expired members", () -> registry.sweepExpired(group));
        }

        /** Member notices arrive from the group's {@code {…}:members} channel; malformed ones are logged and dropped. */
        @Override
        public Subscription watchMembers(String group, Consumer<MemberNotice> listener) {
            return router.subscribe(GroupKeys.of(options.keyPrefix(), group).membersChannel(),
                    decoding("member notice", MemberNotice::decode, listener));
        }
    }

    /** The fenced register role. */
    private final class RegistersRole implements FencedStore {

        @Override
        public CompletableFuture<FencedWriteResult> fencedWrite(String group, String register, String nodeId, long term,
                byte[] value) {
            return call("fenced write", () -> fencing.write(group, register, nodeId, term, value));
        }

        @Override
        public CompletableFuture<Optional<FencedValue>> fencedRead(String group, String register) {
            return call("fenced read", () -> fencing.read(group, register));
        }
    }

    /** The fenced map role. */
    private final class MapsRole implements FencedMapStore {

        /**
         * Applied by one script only if {@code term} is the group's newest issued term, the same counter the fenced
         * registers check. The map is the hash {@code {…}:map:<map>}, one field per key.
         */
        @Override
        public CompletableFuture<FencedMapWrite> fencedPut(String group, String map, String key, String nodeId,
                long term,
                byte[] value) {
            return call("fenced put", () -> maps.put(group, map, key, nodeId, term, value));
        }

        /** Applied by one script only if {@code term} is the group's newest issued term. */
        @Override
        public CompletableFuture<FencedMapWrite> fencedRemove(String group, String map, String key, String nodeId,
                long term) {
            return call("fenced remove", () -> maps.remove(group, map, key, term));
        }

        @Override
        public CompletableFuture<Optional<FencedValue>> mapGet(String group, String map, String key) {
            return call("read map entry", () -> maps.get(group, map, key));
        }

        /** One {@code HGETALL}, sorted here by key. */
        @Override
        public CompletableFuture<SortedMap<String, FencedValue>> mapEntries(String group, String map) {
            return call("list map entries", () -> maps.entries(group, map));
        }
    }

    /** The event log role: a capped list per group. */
    private final class EventsRole implements EventLogStore {

        /**
         * Pushes the event onto {@code {…}:events}, stamped with Redis {@code TIME} and the next id of
         * {@code {…}:events:seq}, and trims the log to {@link RedisStoreOptions#eventRetention()}.
         */
        @Override
        public CompletableFuture<Void> appendEvent(String group, String nodeId, String type, Map<String, String> data) {
            return call("append event", () -> events.append(group, nodeId, type, data));
        }

        @Override
        public CompletableFuture<List<ClusterEvent>> recentEvents(String group, int limit) {
            return call("read recent events", () -> events.recent(group, limit));
        }
    }

    /** The message bus role: Redis pub/sub under the key prefix (sharded pub/sub on a cluster). */
    private final class BusRole implements MessageBus {

        /**
         * Publishes on {@code <keyPrefix><channel>} ({@code SPUBLISH} on a cluster); completes with the number of
         * subscribers that received it.
         */
        @Override
        public CompletableFuture<Long> publish(String channel, byte[] message) {
            return call("publish", () -> failures.guard("publish to " + channel,
                    () -> connections.publish(options.keyPrefix() + channel, message)));
        }

        /**
         * Subscribes to {@code <keyPrefix><channel>} on the store's shared pub/sub connection (on a cluster, with
         * {@code SSUBSCRIBE} on the master of the channel's slot).
         */
        @Override
        public Subscription subscribe(String channel, Consumer<byte[]> handler) {
            return router.subscribe(options.keyPrefix() + channel, handler);
        }
    }

    /** The session role: each operation one script or one pipelined batch ({@link RedisSessions}). */
    private final class SessionsRole implements SessionStore {

        @Override
        public CompletableFuture<String> open(NodeInfo owner, Duration ttl) {
            return call("open session", () -> sessions.open(owner, ttl));
        }

        @Override
        public CompletableFuture<Boolean> keepAlive(String session, Duration ttl) {
            return call("keep session alive", () -> sessions.keepAlive(session, ttl));
        }

        @Override
        public CompletableFuture<Boolean> close(String session) {
            return call("close session", () -> sessions.close(session));
        }

        @Override
        public CompletableFuture<Map<String, Duration>> remaining(Set<String> ids) {
            return call("read session times", () -> sessions.remaining(ids));
        }

        @Override
        public CompletableFuture<AcquireResult> acquire(String group, String session, NodeInfo candidate) {
            return call("acquire", () -> sessions.acquire(group, session, candidate));
        }

        @Override
        public CompletableFuture<Boolean> release(String group, String session, long term) {
            return call("release", () -> sessions.release(group, session, term));
        }

        @Override
        public CompletableFuture<Void> join(String group, String session) {
            return call("join", () -> sessions.join(group, session));
        }

        @Override
        public CompletableFuture<Boolean> leave(String group, String session) {
            return call("leave", () -> sessions.leave(group, session));
        }

        @Override
        public CompletableFuture<Map<String, NodeInfo>> members(String group) {
            return call("list session members", () -> sessions.members(group));
        }
    }

    /** The leader record role; closing it closes the store. */
    private final class LeaderRecordsRole implements LeaderRecordStore {

        /** One {@code HMGET} of the group's {@code {…}:leader} hash. */
        @Override
        public CompletableFuture<Optional<LeaderRecord>> readLeader(String group) {
            return call("read leader record", () -> leaderRecords.read(group));
        }

        /** One script, {@code leader_write.lua}: the compare-and-set on the term, atomic in Redis. */
        @Override
        public CompletableFuture<LeaderRecordWrite> writeLeader(LeaderRecord record) {
            return call("write leader record", () -> leaderRecords.write(record));
        }

        @Override
        public String describe() {
            return description;
        }

        @Override
        public void close() {
            RedisStore.this.close();
        }
    }
}

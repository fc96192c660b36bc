package dev.baton.etcd;

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
import dev.baton.etcd.internal.EtcdCalls;
import dev.baton.etcd.internal.EtcdEventLog;
import dev.baton.etcd.internal.EtcdFencing;
import dev.baton.etcd.internal.EtcdLeaderRecords;
import dev.baton.etcd.internal.EtcdLeases;
import dev.baton.etcd.internal.EtcdRegistry;
import dev.baton.etcd.internal.EtcdSessions;
import dev.baton.etcd.internal.EtcdWatches;
import dev.baton.etcd.internal.GroupKeys;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link CoordinationStore} on an etcd v3 cluster, through jetcd. Every decision is one linearizable etcd
 * transaction, so the store is exactly as available as a majority of the etcd members: it keeps working while one
 * member of three is down or the etcd leader changes, and refuses (never answers wrongly) without a majority.
 *
 * <p><b>Leases and terms.</b> A group's lease is a key attached to an etcd lease of the requested TTL, rounded up to
 * whole seconds; etcd expires it by its own leader's clock. The term is the revision of the transaction that
 * granted the lease: etcd's revision rises with every write and is never reused, so a term is above every term issued
 * before, across etcd member losses and leader changes. Releases and expiries reach watchers as soon as etcd deletes
 * the key. See {@code docs/etcd.md} for the layout and the safety argument.
 *
 * <p><b>Message bus.</b> A message is a write of the channel's key ({@code <prefix>bus/<channel>}), and subscribers
 * watch that key, so every message passes through the raft log once and the key keeps the last message.
 *
 * <p><b>Failures.</b> Methods never block: they return futures completed on jetcd's threads. A call fails with
 * {@link dev.baton.core.store.StoreTimeoutException} after {@link EtcdStoreOptions#callTimeout()} and with
 * {@link StoreException} when etcd refuses it; the client moves to another member by itself. Watches resume on
 * another member from the last revision they saw. Handlers run on jetcd's threads and must not block.
 */
public final class EtcdStore implements CoordinationStore {

    private static final Logger log = LoggerFactory.getLogger(EtcdStore.class);

    private final EtcdStoreOptions options;
    private final String description;
    private final Client client;
    private final EtcdCalls calls;
    private final EtcdWatches watches;
    private final EtcdLeases leases;
    private final EtcdRegistry registry;
    private final EtcdSessions sessions;
    private final EtcdFencing fencing;
    private final EtcdEventLog events;
    private final EtcdLeaderRecords leaderRecords;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final LeaseStore leasesRole = new LeasesRole();
    private final RegistryStore registryRole = new RegistryRole();
    private final FencedStore registersRole = new RegistersRole();
    private final FencedMapStore mapsRole = new MapsRole();
    private final EventLogStore eventsRole = new EventsRole();
    private final MessageBus busRole = new BusRole();
    private final LeaderRecordStore leaderRecordsRole = new LeaderRecordsRole();
    private final Optional<SessionStore> sessionsRole;

    private EtcdStore(EtcdStoreOptions options, Client client) {
        this.options = options;
        this.description = options.describe();
        this.client = client;
        this.calls = new EtcdCalls(description, options.callTimeout());
        this.watches = new EtcdWatches(client.getWatchClient(), description);
        String prefix = options.keyPrefix();
        Clock wallClock = Clock.systemUTC();
        this.leases = new EtcdLeases(client, watches, prefix, calls);
        this.registry = new EtcdRegistry(client, watches, prefix, calls, wallClock);
        this.sessions = new EtcdSessions(client, watches, prefix, calls, wallClock, leases);
        // Its calls on a closed store fail as the closed client's calls do, translated by EtcdCalls.
        this.sessionsRole = options.sessions() ? Optional.of(sessions) : Optional.empty();
        this.fencing = new EtcdFencing(client, prefix, calls);
        this.events = new EtcdEventLog(client, prefix, options.eventRetention(), calls, wallClock);
        this.leaderRecords = new EtcdLeaderRecords(client, prefix, calls);
    }

    /**
     * Connects to {@code uri} with default options: {@code etcd://host:port[,host:port…][/keyPrefix]}.
     *
     * @throws StoreException if no member answers
     * @throws IllegalArgumentException if the URI is malformed
     */
    public static EtcdStore connect(String uri) {
        return connect(EtcdStoreOptions.builder().uri(uri).build());
    }

    /**
     * Connects and checks that the cluster answers a linearizable read (which needs a majority). Blocks for at most
     * twice the call timeout; this is the only blocking call of the store besides {@link #close()}.
     *
     * @throws StoreException {@code cannot reach etcd at etcd://…: <reason>}
     */
    public static EtcdStore connect(EtcdStoreOptions options) {
        String target = options.describe();
        Client client;
        try {
            client = Client.builder().endpoints(options.endpoints().toArray(String[]::new))
                    .connectTimeout(options.connectTimeout())
                    .keepaliveTime(Duration.ofSeconds(5))
                    .keepaliveTimeout(options.callTimeout())
                    .build();
        } catch (RuntimeException e) {
            throw new StoreException("cannot reach etcd at " + target + ": " + EtcdCalls.shortReason(e), e);
        }
        try {
            client.getKVClient().get(GroupKeys.bytes(options.keyPrefix()))
                    .get(options.callTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            client.close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            String reason = e instanceof java.util.concurrent.TimeoutException
                    ? "no answer within " + options.callTimeout().toMillis() * 2 + " ms"
                    : EtcdCalls.shortReason(e);
            throw new StoreException("cannot reach etcd at " + target + ": " + reason, e);
        }
        log.debug("Connected to {}", target);
        return new EtcdStore(options, client);
    }

    /**
     * Sessions on etcd leases, a bound lease key sitting on its session's etcd lease (see {@link SessionStore}); only
     * when the options turn them on ({@link EtcdStoreOptions.Builder#sessions}), empty otherwise.
     */
    @Override
    public Optional<SessionStore> sessions() {
        return sessionsRole;
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

    /** {@code etcd://host:port,host:port/prefix}. */
    @Override
    public String describe() {
        return description;
    }

    /** Closes the client, its watches and its threads. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                watches.closeAll();
            } finally {
                client.close();
            }
        }
    }

    @Override
    public String toString() {
        return "EtcdStore{" + description + "}";
    }

    private <T> CompletableFuture<T> call(String operation, Supplier<CompletableFuture<T>> body) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new StoreException(operation + " on " + description
                    + " failed: the store is closed"));
        }
        return body.get();
    }

    private Subscription subscribe(String operation, Supplier<Subscription> body) {
        if (closed.get()) {
            throw new StoreException(operation + " on " + description + " failed: the store is closed");
        }
        return body.get();
    }

    /** One subscription for two watches: ready when both are, closing both. */
    private static Subscription both(Subscription first, Subscription second) {
        return new Subscription() {
            @Override
            public CompletableFuture<Void> ready() {
                return CompletableFuture.allOf(first.ready(), second.ready());
            }

            @Override
            public void close() {
                try {
                    first.close();
                } finally {
                    second.close();
                }
            }
        };
    }

    /** The lease role: etcd leases and transactions, see {@link EtcdLeases}. */
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

        @Override
        public Subscription watch(String group, Consumer<LeaseNotice> listener) {
            return subscribe("watch lease", () -> leases.watch(group, listener));
        }
    }

    /** The registry role: one key per process on its own etcd lease. */
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

        /** etcd deletes an entry when its etcd lease runs out, so there is never anything left to sweep. */
        @Override
        public CompletableFuture<List<String>> sweepExpired(String group) {
            return call("sweep", () -> CompletableFuture.completedFuture(List.of()));
        }

        @Override
        public Subscription watchMembers(String group, Consumer<MemberNotice> listener) {
            return subscribe("watch members", () -> both(registry.watchMembers(group, listener),
                    sessions.watchMembers(group, listener)));
        }
    }

    /** The fenced registers: transactions guarded by the term key's revision. */
    private final class RegistersRole implements FencedStore {

        @Override
        public CompletableFuture<FencedWriteResult> fencedWrite(String group, String register, String nodeId,
                long term, byte[] value) {
            return call("fenced write", () -> fencing.fencedWrite(group, register, nodeId, term, value));
        }

        @Override
        public CompletableFuture<Optional<FencedValue>> fencedRead(String group, String register) {
            return call("fenced read", () -> fencing.fencedRead(group, register));
        }
    }

    /** The fenced maps: one key per entry, guarded like the registers. */
    private final class MapsRole implements FencedMapStore {

        @Override
        public CompletableFuture<FencedMapWrite> fencedPut(String group, String map, String key, String nodeId,
                long term, byte[] value) {
            return call("fenced map put", () -> fencing.fencedPut(group, map, key, nodeId, term, value));
        }

        @Override
        public CompletableFuture<FencedMapWrite> fencedRemove(String group, String map, String key, String nodeId,
                long term) {
            return call("fenced map remove", () -> fencing.fencedRemove(group, map, key, nodeId, term));
        }

        @Override
        public CompletableFuture<Optional<FencedValue>> mapGet(String group, String map, String key) {
            return call("map get", () -> fencing.mapGet(group, map, key));
        }

        @Override
        public CompletableFuture<SortedMap<String, FencedValue>> mapEntries(String group, String map) {
            return call("map entries", () -> fencing.mapEntries(group, map));
        }
    }

    /** The event log: one key per event, ids from etcd's revisions. */
    private final class EventsRole implements EventLogStore {

        @Override
        public CompletableFuture<Void> appendEvent(String group, String nodeId, String type,
                Map<String, String> data) {
            return call("append event", () -> events.appendEvent(group, nodeId, type, data));
        }

        @Override
        public CompletableFuture<List<ClusterEvent>> recentEvents(String group, int limit) {
            return call("read events", () -> events.recentEvents(group, limit));
        }
    }

    /** Messages are writes of the channel's key; subscribers watch it. Delivery is at most once. */
    private final class BusRole implements MessageBus {

        @Override
        public CompletableFuture<Long> publish(String channel, byte[] message) {
            ByteSequence key = GroupKeys.busChannel(options.keyPrefix(), channel);
            return call("publish", () -> calls.guard("publish", () -> client.getKVClient()
                    .put(key, ByteSequence.from(message), PutOption.DEFAULT).thenApply(put -> -1L)));
        }

        @Override
        public Subscription subscribe(String channel, Consumer<byte[]> handler) {
            ByteSequence key = GroupKeys.busChannel(options.keyPrefix(), channel);
            return EtcdStore.this.subscribe("subscribe", () -> watches.watch(key, false, event -> {
                if (event.getEventType() == WatchEvent.EventType.PUT) {
                    handler.accept(event.getKeyValue().getValue().getBytes());
                }
            }));
        }
    }

    /** Leader records: compare-and-set on one key per group. */
    private final class LeaderRecordsRole implements LeaderRecordStore {

        @Override
        public CompletableFuture<Optional<LeaderRecord>> readLeader(String group) {
            return call("read leader record", () -> leaderRecords.readLeader(group));
        }

        @Override
        public CompletableFuture<LeaderRecordWrite> writeLeader(LeaderRecord record) {
            return call("write leader record", () -> leaderRecords.writeLeader(record));
        }

        @Override
        public String describe() {
            return description;
        }

        /** Closes the whole store. */
        @Override
        public void close() {
            EtcdStore.this.close();
        }
    }
}

package dev.baton.postgres;

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
import dev.baton.postgres.internal.NoticePayload;
import dev.baton.postgres.internal.NoticeRouter;
import dev.baton.postgres.internal.PgDataSource;
import dev.baton.postgres.internal.PgEventLog;
import dev.baton.postgres.internal.PgFailures;
import dev.baton.postgres.internal.PgFenced;
import dev.baton.postgres.internal.PgLeaderRecords;
import dev.baton.postgres.internal.PgLeases;
import dev.baton.postgres.internal.PgListener;
import dev.baton.postgres.internal.PgRegistry;
import dev.baton.postgres.internal.PgSessions;
import dev.baton.postgres.internal.PgTarget;
import dev.baton.postgres.internal.PgThreads;
import dev.baton.postgres.internal.SchemaSetup;
import dev.baton.postgres.internal.SqlRunner;
import dev.baton.postgres.internal.Tables;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link CoordinationStore} on PostgreSQL 12 or later (seed 002's distributed controller, made safe): the lease is a
 * row of {@code leader_lease} per group whose term the database assigns in the same statement that grants it, and
 * every expiry is decided by the database's {@code now()}, never by comparing two machines' clocks.
 *
 * <p><b>Schema.</b> Tables live in one schema ({@code baton} by default): {@code leader_lease}, {@code cluster_nodes},
 * {@code cluster_events}, {@code fenced_registers}, {@code fenced_maps}, {@code leader_records}, {@code sessions},
 * {@code session_members} and {@code schema_version}. They are created at connect if missing ({@link PostgresStoreOptions#createSchema()}), from
 * the scripts that ship in this jar, {@value #SCHEMA_RESOURCE} and one {@code schema-v<N>.sql} per later version,
 * applied in order; an older schema is upgraded in place, and a schema newer than {@value #SCHEMA_VERSION} is
 * refused.
 *
 * <p><b>Leases.</b> Acquire, renew and release are one statement each. The group's row is never deleted: a release
 * clears the holder but keeps the term. A grant is {@code GREATEST(previous term + 1, the database clock in µs since
 * the epoch)}, so terms strictly increase, and stay above every term issued before even when the database comes back
 * with an older {@code leader_lease} (restored from a backup, failed over to a standby that lagged), unless the
 * database's clock stepped back by more than the time since those terms were issued.
 *
 * <p><b>Sessions.</b> A session ({@link #sessions()}) is a row of {@code sessions} kept alive by one {@code UPDATE}
 * per keep-alive; a lease bound to it has the session's id in {@code leader_lease.holder_session} and lives exactly
 * as long as that row does and has not expired, by the database's clock. Both kinds of acquire judge both kinds of
 * lease in the same one statement, with the same terms.
 *
 * <p><b>Notices and messages.</b> Lease and member notices and {@linkplain MessageBus#publish published} messages are
 * {@code NOTIFY}s on one
 * channel named after the schema, sent in the transaction that made the change, so they go out only if it commits.
 * One dedicated LISTEN connection per store (not from the pool) receives them and routes them to watchers; it
 * reconnects by itself after it drops, and elections poll meanwhile. A NOTIFY payload holds less than 8000 bytes, so
 * a message may be at most about 5900 bytes (base64 inside); larger ones fail with {@link StoreException}.
 *
 * <p><b>Failures.</b> Methods never block: they run on the store's own worker threads and complete their futures
 * there. A call waits at most {@code connectTimeout} for a pooled connection and runs under PostgreSQL's
 * {@code statement_timeout}; a server that does not answer at all is given up on shortly after that. Failures are
 * {@link StoreException}s naming the problem ({@code cannot reach PostgreSQL at host:port},
 * {@code authentication failed for user X}, …), timeouts {@link dev.baton.core.store.StoreTimeoutException}s;
 * messages never contain the password.
 *
 * <p><b>Threads.</b> Each store owns a HikariCP pool of {@code poolSize} connections, as many worker threads, the
 * pool's housekeeping thread and one LISTEN thread, all daemons named {@code baton-pg-<n>-…}; {@link #close()} stops
 * them all and closes every connection. Notice and message handlers run on the LISTEN thread and must not block.
 */
public final class PostgresStore implements CoordinationStore {

    /**
     * The class-path location of the first schema script, also applied by hand when {@code createSchema} is false,
     * followed by {@code schema-v2.sql} up to {@link #SCHEMA_VERSION}.
     */
    public static final String SCHEMA_RESOURCE = SchemaSetup.RESOURCE;

    /** The schema version this store reads and writes. */
    public static final int SCHEMA_VERSION = SchemaSetup.VERSION;

    private static final Logger log = LoggerFactory.getLogger(PostgresStore.class);

    private final PostgresStoreOptions options;
    private final String description;
    private final Tables tables;
    private final SqlRunner sql;
    private final PgLeases leases;
    private final PgRegistry registry;
    private final PgFenced fenced;
    private final PgEventLog events;
    private final PgLeaderRecords leaderRecords;
    private final NoticeRouter router;
    private final PgListener listener;
    private final PgDataSource listenConnections;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final LeaseStore leasesRole = new LeasesRole();
    private final RegistryStore registryRole = new RegistryRole();
    private final FencedStore registersRole = new RegistersRole();
    private final FencedMapStore mapsRole = new MapsRole();
    private final EventLogStore eventsRole = new EventsRole();
    private final MessageBus busRole = new BusRole();
    private final LeaderRecordStore leaderRecordsRole = new LeaderRecordsRole();
    private final Optional<SessionStore> sessionsRole;

    private PostgresStore(PostgresStoreOptions options, int storeId, Tables tables, SqlRunner sql) {
        this.options = options;
        this.description = options.describe();
        this.tables = tables;
        this.sql = sql;
        this.router = new NoticeRouter();
        this.listenConnections = PgDataSource.forListening(options.target(), options.connectTimeout(),
                options.statementTimeout(), options.applicationName() + ":listen");
        this.listener = new PgListener(listenConnector(listenConnections, options), tables.channel(),
                router::dispatch,
                options.listenReconnectInterval(), PgThreads.forRole(storeId, "listen"), sql.failures());
        router.attach(listener);
        this.leases = new PgLeases(sql, tables, listener);
        this.registry = new PgRegistry(sql, tables);
        this.fenced = new PgFenced(sql, tables);
        this.events = new PgEventLog(sql, tables, options.eventRetention());
        this.leaderRecords = new PgLeaderRecords(sql, tables);
        // Its calls on a closed store fail in SqlRunner, as the other roles' do in call().
        this.sessionsRole = Optional.of(new PgSessions(sql, tables, leases));
        SqlRunner.Work<Void> warmLeases = c -> {
            leases.warm(c);
            return null;
        };
        // The LISTEN connection runs a waiting follower's acquire (see PgLeases#acquire): warm it like the pool's.
        listenConnections.warmWith(warmLeases);
        sql.warmConnections(warmLeases);
    }

    /**
     * Connects to {@code uri} ({@code postgresql://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]…]/DB[?schema=NAME]})
     * with default options. Several hosts name a primary and its standbys: the store uses whichever accepts writes
     * ({@code targetServerType=primary} unless the URI says otherwise) and follows a promoted standby after a
     * failover, the LISTEN connection included.
     *
     * @throws IllegalArgumentException if the URI is malformed (the message never quotes the password)
     * @throws StoreException           if PostgreSQL cannot be reached or used
     */
    public static PostgresStore connect(String uri) {
        return connect(PostgresStoreOptions.builder().uri(uri).build());
    }

    /**
     * Opens the pool, checks that a connection can be made, and creates or checks the schema. Blocks for at most a
     * few timeouts; this is the only blocking call of the store besides {@link #close()}.
     *
     * @throws StoreException naming the problem: {@code cannot reach PostgreSQL at host:port: …},
     *                        {@code authentication failed for user X at host:port}, {@code database X does not exist},
     *                        a missing table, or a schema version this code does not support
     */
    public static PostgresStore connect(PostgresStoreOptions options) {
        int storeId = PgThreads.nextStoreId();
        PgTarget target = options.target();
        PgFailures failures = new PgFailures(options.describe(), target, options.statementTimeout(),
                options.connectTimeout());
        SqlRunner sql = SqlRunner.open(target, storeId, options.poolSize(), options.connectTimeout(),
                options.statementTimeout(), options.applicationName(), failures);
        Tables tables = new Tables(options.schema());
        try {
            SchemaSetup schema = new SchemaSetup(sql, tables);
            if (options.createSchema()) {
                schema.create();
            } else {
                schema.verify();
            }
        } catch (RuntimeException e) {
            sql.close();
            throw e;
        }
        log.debug("Connected to {}", options.describe());
        return new PostgresStore(options, storeId, tables, sql);
    }

    /**
     * The guard for your own JDBC writes under this store's schema: see {@link PostgresFencing}. Use it with your
     * application's connections, in the database that holds this store's schema.
     */
    public PostgresFencing fencing(String group) {
        return PostgresFencing.forGroup(tables.schema(), group);
    }

    // ------------------------------------------------------------------ roles

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

    /** Sessions on {@code sessions}: a bound lease lives as long as its session's row (see {@link SessionStore}). */
    @Override
    public Optional<SessionStore> sessions() {
        return sessionsRole;
    }

    // ------------------------------------------------------------------ lifecycle

    /** {@code postgresql://user@host:port/db?schema=name}, without the password. */
    @Override
    public String describe() {
        return description;
    }

    /**
     * Stops the LISTEN thread, fails calls still queued, closes every connection and stops every thread of the
     * store. Idempotent; blocks up to a few seconds.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                router.close();
                listener.close();
                listenConnections.close();
            } finally {
                sql.close();
            }
            log.debug("Closed {}", description);
        }
    }

    @Override
    public String toString() {
        return "PostgresStore{" + description + "}";
    }

    private <T> CompletableFuture<T> call(String operation, Supplier<CompletableFuture<T>> body) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new StoreException(operation + " on " + description
                    + " failed: the store is closed"));
        }
        return body.get();
    }

    private <T> Subscription watchNotices(NoticePayload.Kind kind, String group, String what,
            Function<String, T> decoder, Consumer<T> watcher) {
        return router.subscribe(kind, group, payload -> {
            T notice;
            try {
                notice = decoder.apply(payload.body());
            } catch (IllegalArgumentException e) {
                log.warn("Dropping malformed {}: {}", what, e.getMessage());
                return;
            }
            watcher.accept(notice);
        });
    }

    private static PgListener.Connector listenConnector(PgDataSource connections, PostgresStoreOptions options) {
        int networkTimeout = (int) options.statementTimeout().plus(PgFailures.networkSlack()).toMillis();
        return () -> {
            Connection connection = connections.getConnection();
            connection.setNetworkTimeout(Runnable::run, networkTimeout);
            // Like the pool's connections: it runs acquires too (see PgLeases#acquire).
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET statement_timeout = " + options.statementTimeout().toMillis());
            } catch (SQLException e) {
                connection.close();
                throw e;
            }
            return connection;
        };
    }

    /** The lease role on {@code leader_lease}. */
    private final class LeasesRole implements LeaseStore {

        @Override
        public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
            return call("acquire", () -> leases.acquire(group, candidate, ttl));
        }

        @Override
        public CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl) {
            return call("renew", () -> leases.renew(group, nodeId, term, ttl));
        }

        /** Ends the lease but keeps the group's term in {@code leader_lease}; the notice goes out on commit. */
        @Override
        public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
            return call("release", () -> leases.release(group, nodeId, term));
        }

        @Override
        public CompletableFuture<Optional<Lease>> read(String group) {
            return call("read lease", () -> leases.read(group));
        }

        /** Notices arrive on the LISTEN connection's thread; malformed ones are logged and dropped. */
        @Override
        public Subscription watch(String group, Consumer<LeaseNotice> watcher) {
            return watchNotices(NoticePayload.Kind.LEASE, group, "lease notice", LeaseNotice::decode, watcher);
        }
    }

    /** The registry role on {@code cluster_nodes}. */
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

        /** Notices arrive on the LISTEN connection's thread; malformed ones are logged and dropped. */
        @Override
        public Subscription watchMembers(String group, Consumer<MemberNotice> watcher) {
            return watchNotices(NoticePayload.Kind.MEMBER, group, "member notice", MemberNotice::decode, watcher);
        }
    }

    /** The fenced register role on {@code fenced_registers}. */
    private final class RegistersRole implements FencedStore {

        @Override
        public CompletableFuture<FencedWriteResult> fencedWrite(String group, String register, String nodeId, long term,
                byte[] value) {
            return call("fenced write", () -> fenced.write(group, register, nodeId, term, value));
        }

        @Override
        public CompletableFuture<Optional<FencedValue>> fencedRead(String group, String register) {
            return call("fenced read", () -> fenced.read(group, register));
        }
    }

    /** The fenced map role on {@code fenced_maps}. */
    private final class MapsRole implements FencedMapStore {

        @Override
        public CompletableFuture<FencedMapWrite> fencedPut(String group, String map, String key, String nodeId,
                long term,
                byte[] value) {
            return call("fenced put", () -> fenced.put(group, map, key, nodeId, term, value));
        }

        @Override
        public CompletableFuture<FencedMapWrite> fencedRemove(String group, String map, String key, String nodeId,
                long term) {
            return call("fenced remove", () -> fenced.remove(group, map, key, nodeId, term));
        }

        @Override
        public CompletableFuture<Optional<FencedValue>> mapGet(String group, String map, String key) {
            return call("read map entry", () -> fenced.get(group, map, key));
        }

        @Override
        public CompletableFuture<SortedMap<String, FencedValue>> mapEntries(String group, String map) {
            return call("list map entries", () -> fenced.entries(group, map));
        }
    }

    /** The event log role on {@code cluster_events}. */
    private final class EventsRole implements EventLogStore {

        @Override
        public CompletableFuture<Void> appendEvent(String group, String nodeId, String type, Map<String, String> data) {
            return call("append event", () -> events.append(group, nodeId, type, data));
        }

        @Override
        public CompletableFuture<List<ClusterEvent>> recentEvents(String group, int limit) {
            return call("read events", () -> events.recent(group, limit));
        }
    }

    /** The message bus role: NOTIFY on the schema's channel. */
    private final class BusRole implements MessageBus {

        /**
         * Sends {@code message} with {@code pg_notify} on the schema's channel; completes with -1, since PostgreSQL
         * does
         * not say how many listeners received it.
         *
         * <p>Fails with {@link StoreException} if the payload ({@code message <n>:<channel> <base64>}) would reach
         * PostgreSQL's limit of 8000 bytes: about 5900 bytes of message for a short channel name.
         */
        @Override
        public CompletableFuture<Long> publish(String channel, byte[] message) {
            String payload = NoticePayload.message(channel, message).encode();
            int size = NoticePayload.byteLength(payload);
            if (size > NoticePayload.MAX_BYTES) {
                return CompletableFuture.failedFuture(new StoreException("publish to " + channel + " on " + description
                        + " failed: a message of " + message.length + " bytes makes a NOTIFY payload of " + size
                        + " bytes (base64 plus channel name), over PostgreSQL's limit of " + NoticePayload.MAX_BYTES
                        + " bytes; send large data through a table and publish its key instead"));
            }
            return call("publish", () -> sql.submit("publish to " + channel, c -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
                    ps.setString(1, tables.channel());
                    ps.setString(2, payload);
                    ps.executeQuery().close();
                }
                return -1L;
            }));
        }

        /** Messages arrive on the LISTEN connection's thread, in the order their transactions committed. */
        @Override
        public Subscription subscribe(String channel, Consumer<byte[]> handler) {
            return router.subscribe(NoticePayload.Kind.MESSAGE, channel, payload -> {
                byte[] bytes;
                try {
                    bytes = payload.messageBytes();
                } catch (IllegalArgumentException e) {
                    log.warn("Dropping a message on {} that is not base64", channel);
                    return;
                }
                handler.accept(bytes);
            });
        }
    }

    /** The leader record role on {@code leader_records}; closing it closes the store. */
    private final class LeaderRecordsRole implements LeaderRecordStore {

        /** One row of {@code leader_records}. */
        @Override
        public CompletableFuture<Optional<LeaderRecord>> readLeader(String group) {
            return call("read leader record", () -> leaderRecords.read(group));
        }

        /**
         * One {@code INSERT … ON CONFLICT DO UPDATE} on the group's row of {@code leader_records}: the compare-and-set
         * on
         * the term, decided on the newest committed row under its lock.
         */
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
            PostgresStore.this.close();
        }
    }
}

package dev.baton.bench.backend;

import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Summary;
import dev.baton.core.store.CoordinationStore;
import dev.baton.postgres.PostgresStore;
import dev.baton.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * A private PostgreSQL (the testkit's {@link PostgresServer}: its own directory and free loopback port, never a
 * server on the standard port) with a plain pgjdbc connection for calibration and for looking at the server from the
 * outside. The testkit runs it with {@code fsync = off}; commits are still synchronous.
 */
public final class PostgresBackend implements BenchBackend {

    /** The schema {@link PostgresStore} uses by default, where its tables live. */
    private static final String SCHEMA = "baton";

    private static final StorePath PATH = new StorePath(
            "hop to a store worker thread; UPDATE of leader_lease + pg_notify on a pooled connection, committed;"
                    + " the NOTIFY read by the winner's LISTEN thread",
            "INSERT … ON CONFLICT acquire statement (pg_notify of the grant inside), run on the winner's LISTEN"
                    + " connection by the thread that read the notice; reply on that thread",
            "hop to the scheduler thread (created now unless supplied); lease watch added to the store's LISTEN"
                    + " connection (already listening: no round trip), ElectionStarted emitted (the event thread is"
                    + " created now unless supplied), then store.acquire()",
            "hop to a store worker thread, acquire statement on a pooled connection (the register statement that"
                    + " follows runs beside it on another); reply on that worker thread");

    private final PostgresServer server;
    private final Connection admin;
    private final PreparedStatement select1;

    private PostgresBackend(PostgresServer server, Connection admin) throws SQLException {
        this.server = server;
        this.admin = admin;
        this.select1 = admin.prepareStatement("SELECT 1");
    }

    static PostgresBackend start() throws SQLException {
        PostgresServer server = PostgresServer.start();
        try {
            return new PostgresBackend(server, open(server));
        } catch (SQLException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private static Connection open(PostgresServer server) throws SQLException {
        Connection connection = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
        connection.setAutoCommit(true);
        return connection;
    }

    @Override
    public BackendKind kind() {
        return BackendKind.POSTGRES;
    }

    @Override
    public String uri() {
        return server.uri();
    }

    /** The private server, for a scenario that keeps its own tables beside the store's. */
    public PostgresServer server() {
        return server;
    }

    /** A new plain pgjdbc connection (autocommit) to the server's database; the caller closes it. */
    public Connection openConnection() throws SQLException {
        return open(server);
    }

    @Override
    public CoordinationStore connect() {
        return PostgresStore.connect(server.uri());
    }

    @Override
    public String describe() {
        try {
            for (int i = 0; i < 200; i++) {
                roundTrip();
            }
            long[] samples = new long[2_000];
            for (int i = 0; i < samples.length; i++) {
                long start = System.nanoTime();
                roundTrip();
                samples[i] = System.nanoTime() - start;
            }
            Summary summary = Summary.of(samples);
            return "Private PostgreSQL " + version() + " on " + server.host() + ":" + server.port() + " ("
                    + PostgresServer.binaries() + "; fsync off as the testkit configures it, commits synchronous);"
                    + " pgjdbc SELECT 1 round trip p50 " + MarkdownTable.millis(summary.p50()) + " ms, p99 "
                    + MarkdownTable.millis(summary.p99()) + " ms.";
        } catch (SQLException e) {
            throw new IllegalStateException("could not talk to the private PostgreSQL", e);
        }
    }

    private String version() throws SQLException {
        try (Statement statement = admin.createStatement();
             ResultSet rs = statement.executeQuery("SHOW server_version")) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Override
    public String roundTripName() {
        return "SELECT 1";
    }

    @Override
    public String roundTripClient() {
        return "pgjdbc, prepared, autocommit";
    }

    @Override
    public synchronized void roundTrip() throws SQLException {
        try (ResultSet rs = select1.executeQuery()) {
            rs.next();
        }
    }

    /**
     * Reads every live row of {@code group} in {@code cluster_nodes} with each column as text, as a plain query would
     * (no join with the lease, no JSON unpacking, no {@code NodeInfo}): the transfer a registry listing cannot avoid.
     * Returns the number of characters read.
     */
    public synchronized long registryRowChars(String group) throws SQLException {
        long chars = 0;
        try (PreparedStatement ps = admin.prepareStatement("SELECT node_id, identifier, api_url, hostname, "
                + "port::text, state, capabilities::text, metadata::text, created_at::text, last_heartbeat::text "
                + "FROM " + SCHEMA + ".cluster_nodes WHERE group_name = ? AND expires_at > now()")) {
            ps.setString(1, group);
            try (ResultSet rs = ps.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    for (int c = 1; c <= columns; c++) {
                        String value = rs.getString(c);
                        chars += value == null ? 0 : value.length();
                    }
                }
            }
        }
        return chars;
    }

    /**
     * {@code xact_commit + xact_rollback} of the store's database from {@code pg_stat_database}: the transactions the
     * server finished so far, as its statistics know them (a backend reports its counts within about a second while
     * busy, up to ten seconds later when idle); this query's own not yet.
     */
    public synchronized long transactions() throws SQLException {
        try (Statement statement = admin.createStatement();
             ResultSet rs = statement.executeQuery("SELECT xact_commit + xact_rollback FROM pg_stat_database"
                     + " WHERE datname = current_database()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public PushProbe openPushProbe() throws SQLException {
        String channel = "bench_calibration";
        Connection listen = openConnection();
        Connection send = openConnection();
        try (Statement statement = listen.createStatement()) {
            statement.execute("LISTEN " + channel);
        }
        BlockingQueue<Long> received = new LinkedBlockingQueue<>();
        PGConnection pg = listen.unwrap(PGConnection.class);
        Thread reader = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    // The loop PgListener runs: getNotifications with a 500 ms timeout.
                    PGNotification[] notifications = pg.getNotifications(500);
                    if (notifications != null) {
                        for (PGNotification notification : notifications) {
                            received.add(System.nanoTime());
                        }
                    }
                }
            } catch (SQLException e) {
                // close() aborts the connection.
            }
        }, "bench-calibration-listen");
        reader.setDaemon(true);
        reader.start();
        PreparedStatement notify = send.prepareStatement("SELECT pg_notify('" + channel + "', 'x')");
        return new PushProbe() {
            @Override
            public String name() {
                return "NOTIFY -> LISTEN thread";
            }

            @Override
            public long sendAndAwait() throws Exception {
                long sent = System.nanoTime();
                notify.executeQuery().close();
                Long at = received.poll(5, TimeUnit.SECONDS);
                if (at == null) {
                    throw new IllegalStateException("no notification on " + channel + " within 5 s");
                }
                return at - sent;
            }

            @Override
            public void close() {
                reader.interrupt();
                for (Connection c : new Connection[] {listen, send}) {
                    try {
                        c.abort(Runnable::run);
                    } catch (SQLException e) {
                        // The server is stopped with the backend anyway.
                    }
                }
            }
        };
    }

    @Override
    public StorePath path() {
        return PATH;
    }

    @Override
    public void close() {
        try {
            admin.close();
        } catch (SQLException e) {
            // The server is stopped next, which ends the session anyway.
        } finally {
            server.close();
        }
    }
}

package dev.baton.postgres.internal;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Where the pool gets its connections: pgjdbc's driver with the store's properties, and a record of every connection
 * handed out, so that {@link #close()} can close whatever the pool still holds.
 *
 * <p>That matters when the store is closed while the database hangs: HikariCP may then be half-way through opening
 * a connection on its own thread, which succeeds once the database answers again, after the pool has shut down, and
 * would stay open for the life of the JVM. A connection that finishes opening after {@link #close()} is closed at
 * once instead.
 */
public final class PgDataSource implements DataSource {

    private static final org.postgresql.Driver DRIVER = new org.postgresql.Driver();
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PgDataSource.class);

    private final String url;
    private final Properties properties;
    /** The longest one connection attempt can take: the TCP connect plus the login's reads. */
    private final int attemptSeconds;
    private final Set<Connection> opened = ConcurrentHashMap.newKeySet();
    private boolean closed;
    private volatile SqlRunner.Work<?> warmer;

    private PgDataSource(String url, Properties properties, int attemptSeconds) {
        this.url = url;
        this.properties = properties;
        this.attemptSeconds = attemptSeconds;
    }

    /**
     * Connections to {@code target} as {@code applicationName}, with pgjdbc's socket timeouts set so that no connect,
     * login or read waits forever: {@code connectTimeout} for the TCP connect, {@code statementTimeout} plus
     * {@link PgFailures#networkSlack()} for every read, login included (whole seconds, pgjdbc's unit, rounded up).
     * pgjdbc's {@code loginTimeout} is not used: it would start a thread per connection attempt.
     */
    public static PgDataSource of(PgTarget target, Duration connectTimeout, Duration statementTimeout,
            String applicationName) {
        Properties props = target.driverProperties();
        long connectSeconds = seconds(connectTimeout);
        long socketSeconds = seconds(statementTimeout.plus(PgFailures.networkSlack()));
        props.setProperty("connectTimeout", Long.toString(connectSeconds));
        props.setProperty("socketTimeout", Long.toString(socketSeconds));
        props.setProperty("tcpKeepAlive", "true");
        props.setProperty("ApplicationName", applicationName);
        // A store runs the same few statements for its whole life: prepare them on the server from their first use
        // on a connection, instead of pgjdbc's default of sending them unprepared four times first.
        props.putIfAbsent("prepareThreshold", "1");
        int attemptSeconds = (int) Math.min(Integer.MAX_VALUE, connectSeconds + socketSeconds);
        return new PgDataSource(target.jdbcUrl(), props, attemptSeconds);
    }

    /**
     * Like {@link #of}, for the LISTEN connection: its sockets come from {@link ListenSocketFactory}, so that pgjdbc
     * hands over each notification as soon as it has read it, unless the URI names a socket factory of its own.
     */
    public static PgDataSource forListening(PgTarget target, Duration connectTimeout, Duration statementTimeout,
            String applicationName) {
        PgDataSource source = of(target, connectTimeout, statementTimeout, applicationName);
        source.properties.putIfAbsent(ListenSocketFactory.PROPERTY, ListenSocketFactory.class.getName());
        return source;
    }

    private static long seconds(Duration duration) {
        return Math.max(1, (duration.toMillis() + 999) / 1000);
    }

    /** A copy of the driver properties (for tests: what pgjdbc is given, password included). */
    Properties properties() {
        Properties copy = new Properties();
        copy.putAll(properties);
        return copy;
    }

    /**
     * Runs {@code work} on every connection opened from now on, before it is handed out (to the pool, on the pool's
     * own thread): see {@link PgLeases#warm}. A warm-up that fails is only logged: the connection works without it.
     */
    public void warmWith(SqlRunner.Work<?> work) {
        this.warmer = work;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = DRIVER.connect(url, properties);
        if (connection == null) {
            throw new SQLException("pgjdbc does not accept " + url);
        }
        SqlRunner.Work<?> warm = warmer;
        if (warm != null) {
            try {
                warm.run(connection);
            } catch (SQLException | RuntimeException e) {
                log.debug("Warming up a new connection failed ({}); it is used as it is", e.toString());
            }
        }
        synchronized (this) {
            if (!closed) {
                opened.removeIf(PgDataSource::isClosed);
                opened.add(connection);
                return connection;
            }
        }
        abort(connection);
        throw new SQLException("the store was closed while this connection was being opened");
    }

    /** Closes every connection handed out that is still open, and every one that finishes opening later. */
    public void close() {
        List<Connection> open;
        synchronized (this) {
            closed = true;
            open = new ArrayList<>(opened);
            opened.clear();
        }
        open.forEach(PgDataSource::abort);
    }

    private static boolean isClosed(Connection connection) {
        try {
            return connection.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    private static void abort(Connection connection) {
        try {
            connection.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // Nothing more to do: the socket is gone either way.
            }
        }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("the store's credentials are fixed");
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        // pgjdbc logs through java.util.logging; nothing to set.
    }

    /** Ignored: pgjdbc's {@code connectTimeout} and {@code socketTimeout} bound a connection attempt instead. */
    @Override
    public void setLoginTimeout(int seconds) {
        // See the comment above.
    }

    /**
     * How long one connection attempt can take at most. HikariCP waits this long for a connection being added when
     * the pool shuts down; answering 0 made every close log "Timed-out waiting for add connection executor".
     */
    @Override
    public int getLoginTimeout() {
        return attemptSeconds;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("not a wrapper for " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }
}

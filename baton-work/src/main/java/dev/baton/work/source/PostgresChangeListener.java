package dev.baton.work.source;

import dev.baton.core.Registration;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens on a PostgreSQL notification channel ({@code LISTEN}) for a {@link JdbcDesiredStateSource}'s watch: one
 * dedicated connection from the source's {@link DataSource}, read by one daemon thread that blocks in pgjdbc's
 * {@link PGConnection#getNotifications(int)} (no polling: the driver wakes it when a notification arrives). Every
 * batch of notifications becomes one {@code changed} signal.
 *
 * <p>A lost connection (the server restarted, the backend was terminated, the network broke) is retried with backoff
 * from {@link #RETRY_INITIAL} up to {@link #RETRY_MAX}; once {@code LISTEN} is in place again it signals once, since
 * notifications sent while nobody listened are gone.
 */
final class PostgresChangeListener implements Registration {

    /** A channel name {@code LISTEN} takes unquoted: lower-case letters, digits and underscores, 63 at most. */
    static final Pattern CHANNEL = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    static final Duration RETRY_INITIAL = Duration.ofMillis(200);
    static final Duration RETRY_MAX = Duration.ofSeconds(10);
    /** How long one wait for notifications blocks, so that {@link #close} is noticed this soon without a wakeup. */
    private static final int WAIT_MILLIS = 250;

    private static final Logger log = LoggerFactory.getLogger(PostgresChangeListener.class);

    private final DataSource dataSource;
    private final String channel;
    private final Runnable changed;
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean closed;

    private PostgresChangeListener(DataSource dataSource, String channel, Runnable changed) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.changed = changed;
        this.thread = new Thread(this::run, "baton-listen-" + channel);
        thread.setDaemon(true);
    }

    /** Starts listening on {@code channel}; the first {@code LISTEN} happens on the listener's own thread. */
    static PostgresChangeListener start(DataSource dataSource, String channel, Runnable changed) {
        PostgresChangeListener listener = new PostgresChangeListener(dataSource, checkChannel(channel),
                Objects.requireNonNull(changed, "changed"));
        listener.thread.start();
        return listener;
    }

    /**
     * {@code channel} if PostgreSQL takes it unquoted.
     *
     * @throws IllegalArgumentException naming the channel and the rule
     */
    static String checkChannel(String channel) {
        Objects.requireNonNull(channel, "channel");
        if (!CHANNEL.matcher(channel).matches()) {
            throw new IllegalArgumentException("notification channel '" + channel + "': expected lower-case letters, "
                    + "digits and underscores, starting with a letter or underscore, at most 63 characters");
        }
        return channel;
    }

    private void run() {
        try {
            Duration retry = RETRY_INITIAL;
            boolean listenedBefore = false;
            while (!closed) {
                try (Connection connection = dataSource.getConnection()) {
                    PGConnection pg = unwrap(connection);
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("LISTEN " + channel);
                    }
                    if (listenedBefore) {
                        log.info("listening on '{}' again; reloading the desired state in case a change was missed",
                                channel);
                        changed.run();
                    }
                    listenedBefore = true;
                    retry = RETRY_INITIAL;
                    listen(pg);
                } catch (NotPostgres e) {
                    log.error("{}; the desired state is reloaded at the reconcile interval only", e.getMessage());
                    break;
                } catch (SQLException | RuntimeException e) {
                    if (closed) {
                        break;
                    }
                    log.warn("desired state notifications on '{}' interrupted ({}); listening again in {} ms", channel,
                            e.getMessage(), retry.toMillis());
                    if (stopped.await(retry.toMillis(), TimeUnit.MILLISECONDS)) {
                        break;
                    }
                    retry = retry.multipliedBy(2).compareTo(RETRY_MAX) > 0 ? RETRY_MAX : retry.multipliedBy(2);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void listen(PGConnection pg) throws SQLException {
        while (!closed) {
            PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
            if (notifications != null && notifications.length > 0 && !closed) {
                changed.run();
            }
        }
    }

    private PGConnection unwrap(Connection connection) throws SQLException {
        if (!connection.isWrapperFor(PGConnection.class)) {
            throw new NotPostgres("the desired state source's DataSource is not PostgreSQL ("
                    + connection.getMetaData().getDatabaseProductName() + "): LISTEN on '" + channel
                    + "' needs PostgreSQL's JDBC driver");
        }
        return connection.unwrap(PGConnection.class);
    }

    /** The DataSource's connections are not PostgreSQL's: retrying would not help. */
    private static final class NotPostgres extends RuntimeException {
        NotPostgres(String message) {
            super(message, null, false, false);
        }
    }

    /** Stops listening; returns once the listener's connection is given back (bounded by one wait). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopped.countDown();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(WAIT_MILLIS * 4L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

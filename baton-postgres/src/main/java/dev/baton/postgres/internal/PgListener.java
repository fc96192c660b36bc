package dev.baton.postgres.internal;

import dev.baton.core.store.StoreException;
import dev.baton.core.time.Clock;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's one LISTEN connection: a dedicated pgjdbc connection (not from the pool, which would hand it to other
 * statements) read by one daemon thread in a {@code getNotifications(timeout)} loop. Every payload on the channel
 * goes to one consumer, on this thread, in commit order.
 *
 * <p>The thread starts on the first {@link #ready()}. When the connection drops (the server restarted, the backend
 * was terminated, or a keep-alive {@code SELECT 1} found the server silent past its network timeout) the thread
 * reconnects every {@code reconnectInterval} until it succeeds or the listener is closed. Notifications sent while it
 * is down are lost; push notices are hints, and elections poll meanwhile.
 *
 * <p>While it delivers a notification the thread lends its connection to the handler ({@link #deliveringConnection}):
 * a waiting follower's acquire, sent the moment a release notice arrives, runs there rather than behind a hop to a
 * worker thread and on a pooled connection whose backend has gone idle. The connection has the pool's statement
 * timeout, so such a statement holds up the notifications behind it for at most that long.
 */
public final class PgListener implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PgListener.class);
    private static final int POLL_MILLIS = 500;
    private static final Duration KEEPALIVE = Duration.ofSeconds(5);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(5);

    /** Opens the dedicated connection. */
    @FunctionalInterface
    public interface Connector {
        Connection connect() throws SQLException;
    }

    private enum State { IDLE, CONNECTING, LISTENING, DOWN, CLOSED }

    private final Connector connector;
    private final String channel;
    private final Consumer<String> onPayload;
    private final Duration reconnectInterval;
    private final ThreadFactory threads;
    private final PgFailures failures;
    private final Clock clock = Clock.system();
    private final Object lock = new Object();
    /** The connection, on this listener's thread while it delivers notifications. */
    private final ThreadLocal<Connection> delivering = new ThreadLocal<>();

    // Guarded by lock.
    private State state = State.IDLE;
    private StoreException lastFailure;
    private final List<CompletableFuture<Void>> waiting = new ArrayList<>();
    private Thread thread;
    private Connection connection;

    /**
     * @param channel   the NOTIFY channel to LISTEN on
     * @param onPayload receives every payload, on the listener thread; must not block, but for a statement it runs on
     *                  {@link #deliveringConnection()}
     */
    public PgListener(Connector connector, String channel, Consumer<String> onPayload, Duration reconnectInterval,
            ThreadFactory threads, PgFailures failures) {
        this.connector = connector;
        this.channel = channel;
        this.onPayload = onPayload;
        this.reconnectInterval = reconnectInterval;
        this.threads = threads;
        this.failures = failures;
    }

    /**
     * Completes once LISTEN is in effect: at once while connected; when the first connection is made; exceptionally
     * at once while the connection is down (the thread keeps reconnecting) or after close.
     */
    public CompletableFuture<Void> ready() {
        synchronized (lock) {
            switch (state) {
                case LISTENING:
                    return CompletableFuture.completedFuture(null);
                case DOWN:
                    return CompletableFuture.failedFuture(lastFailure);
                case CLOSED:
                    return CompletableFuture.failedFuture(closedException());
                case IDLE:
                    state = State.CONNECTING;
                    thread = threads.newThread(this::run);
                    thread.start();
                    break;
                default:
                    break;
            }
            CompletableFuture<Void> future = new CompletableFuture<>();
            waiting.add(future);
            return future;
        }
    }

    /** Whether LISTEN is in effect right now. */
    public boolean isListening() {
        synchronized (lock) {
            return state == State.LISTENING;
        }
    }

    /**
     * The LISTEN connection, when called from a payload handler on this listener's thread; null on any other thread.
     * A statement run on it must leave it as it was (autocommit on, no transaction open) and must not LISTEN or
     * UNLISTEN; a failure of the connection surfaces in the listener's next read, which reconnects.
     */
    Connection deliveringConnection() {
        return delivering.get();
    }

    /** Stops the thread and closes the connection; waits up to a few seconds for the thread to end. Idempotent. */
    @Override
    public void close() {
        Thread running;
        Connection open;
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
            failWaiting(closedException());
            running = thread;
            open = connection;
            lock.notifyAll();
        }
        if (open != null) {
            abort(open);
        }
        if (running != null && running != Thread.currentThread()) {
            try {
                running.join(JOIN_TIMEOUT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (running.isAlive()) {
                log.warn("The LISTEN thread of {} did not stop within {} ms", failures.target(),
                        JOIN_TIMEOUT.toMillis());
            }
        }
    }

    private void run() {
        while (true) {
            Connection c = null;
            try {
                c = connector.connect();
                try (Statement statement = c.createStatement()) {
                    statement.execute("LISTEN " + Tables.quoteIdentifier(channel));
                }
            } catch (SQLException | RuntimeException e) {
                closeQuietly(c);
                if (!markDown(e) || !pauseBeforeReconnect()) {
                    return;
                }
                continue;
            }
            if (!markListening(c)) {
                closeQuietly(c);
                return;
            }
            try {
                pump(c);
            } catch (SQLException | RuntimeException e) {
                if (isClosed()) {
                    closeQuietly(c);
                    return;
                }
                log.info("LISTEN connection to {} dropped ({}); reconnecting in {} ms", failures.target(),
                        PgFailures.shortReason(e), reconnectInterval.toMillis());
                closeQuietly(c);
                if (!markDown(e) || !pauseBeforeReconnect()) {
                    return;
                }
                continue;
            }
            closeQuietly(c);
            return;
        }
    }

    /** Delivers notifications until the listener is closed (returns) or the connection fails (throws). */
    private void pump(Connection c) throws SQLException {
        PGConnection pg = c.unwrap(PGConnection.class);
        long lastCheck = clock.nanoTime();
        while (!isClosed()) {
            PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
            if (notifications != null) {
                delivering.set(c);
                try {
                    for (PGNotification notification : notifications) {
                        if (channel.equals(notification.getName())) {
                            deliver(notification.getParameter());
                        }
                    }
                } finally {
                    delivering.remove();
                }
            }
            if (clock.nanoTime() - lastCheck > KEEPALIVE.toNanos()) {
                // A server that stopped answering (paused, cut off) sends no error: only a query notices.
                try (Statement statement = c.createStatement()) {
                    statement.execute("SELECT 1");
                }
                lastCheck = clock.nanoTime();
            }
        }
    }

    private void deliver(String payload) {
        try {
            onPayload.accept(payload);
        } catch (RuntimeException e) {
            log.warn("A notification handler of {} failed; later notifications are still delivered",
                    failures.target(), e);
        }
    }

    private boolean markListening(Connection c) {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return false;
            }
            if (state == State.DOWN) {
                log.info("LISTEN connection to {} re-established", failures.target());
            }
            state = State.LISTENING;
            connection = c;
            lastFailure = null;
            for (CompletableFuture<Void> future : waiting) {
                future.complete(null);
            }
            waiting.clear();
            return true;
        }
    }

    /** Records the failure and fails pending ready futures; false if the listener was closed meanwhile. */
    private boolean markDown(Throwable error) {
        synchronized (lock) {
            connection = null;
            if (state == State.CLOSED) {
                return false;
            }
            lastFailure = failures.translate("LISTEN " + channel, error);
            if (state != State.DOWN) {
                log.debug("LISTEN on {} failed: {}", failures.target(), lastFailure.getMessage());
            }
            state = State.DOWN;
            failWaiting(lastFailure);
            return true;
        }
    }

    /** Waits {@code reconnectInterval}, or less if closed meanwhile; false if closed. */
    private boolean pauseBeforeReconnect() {
        long until = clock.nanoTime() + reconnectInterval.toNanos();
        synchronized (lock) {
            long left;
            while (state != State.CLOSED && (left = until - clock.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return state != State.CLOSED;
        }
    }

    private boolean isClosed() {
        synchronized (lock) {
            return state == State.CLOSED;
        }
    }

    private void failWaiting(StoreException error) {
        for (CompletableFuture<Void> future : waiting) {
            future.completeExceptionally(error);
        }
        waiting.clear();
    }

    private StoreException closedException() {
        return new StoreException("LISTEN on " + failures.target() + " failed: the store is closed");
    }

    private static void abort(Connection c) {
        try {
            c.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            closeQuietly(c);
        }
    }

    private static void closeQuietly(Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            log.trace("Closing a LISTEN connection failed", e);
        }
    }
}

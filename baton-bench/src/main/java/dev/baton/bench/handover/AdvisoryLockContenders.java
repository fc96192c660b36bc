package dev.baton.bench.handover;

import dev.baton.bench.backend.PostgresBackend;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * PostgreSQL's own session advisory lock as three contenders, the reference for a handover through
 * PostgreSQL: three pgjdbc connections, one thread each looping {@code pg_advisory_lock(key)} (blocks in the server
 * until granted) -> hold -> {@code pg_advisory_unlock(key)}. t0 is taken just before the unlock is sent, t1 when the
 * next holder's {@code pg_advisory_lock} returns in its thread. The server's lock manager grants the lock to the
 * first waiter and wakes its backend; no polling and no NOTIFY are involved.
 *
 * <p>A session lock belongs to the session that took it, so each release happens on the holder's own thread when the
 * harness tells it to. After unlocking, a holder waits to rejoin until another holder took the lock (as
 * {@link RedissonContenders} does). A contender counts as waiting once {@code pg_locks} shows its request ungranted.
 */
public final class AdvisoryLockContenders implements Contenders {

    /** The row name in result tables. */
    public static final String NAME = "PostgreSQL advisory lock";

    private static final int CONTENDERS = 3;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(5);
    /** A bigint advisory key below 2^32 shows in pg_locks as classid 0, objid key, objsubid 1. */
    private static final String WAITERS = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            + " AND classid = 0 AND objid::bigint = ? AND objsubid = 1";

    private final PostgresBackend backend;
    private final long key;
    private final Connection[] connections = new Connection[CONTENDERS];
    private final Thread[] threads = new Thread[CONTENDERS];
    private final Semaphore[] releaseSignals = new Semaphore[CONTENDERS];
    private final Semaphore[] rejoinSignals = new Semaphore[CONTENDERS];
    private Connection observer;
    private LeaderSink sink;

    private volatile boolean closing;

    /** Contenders for the advisory lock whose key is derived from {@code name}. */
    public AdvisoryLockContenders(PostgresBackend backend, String name) {
        this.backend = backend;
        this.key = 1 + Math.floorMod(name.hashCode(), Integer.MAX_VALUE - 1);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String note() {
        return "session pg_advisory_lock()/pg_advisory_unlock(), pgjdbc, t1 when pg_advisory_lock returns";
    }

    @Override
    public void start(LeaderSink leaderSink) throws Exception {
        this.sink = leaderSink;
        observer = backend.openConnection();
        for (int i = 0; i < CONTENDERS; i++) {
            connections[i] = backend.openConnection();
            releaseSignals[i] = new Semaphore(0);
            rejoinSignals[i] = new Semaphore(0);
        }
        for (int i = 0; i < CONTENDERS; i++) {
            int contender = i;
            threads[i] = new Thread(() -> contend(contender), "advisory-contender-" + i);
            threads[i].setDaemon(true);
            threads[i].start();
        }
        awaitWaiters(CONTENDERS - 1);
    }

    private void contend(int contender) {
        Connection connection = connections[contender];
        try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_lock(?)");
             PreparedStatement unlock = connection.prepareStatement("SELECT pg_advisory_unlock(?)")) {
            lock.setLong(1, key);
            unlock.setLong(1, key);
            while (!Thread.currentThread().isInterrupted()) {
                try (ResultSet granted = lock.executeQuery()) {
                    sink.acquired(contender);
                }
                releaseSignals[contender].acquire();
                sink.releasing();
                try (ResultSet released = unlock.executeQuery()) {
                    if (!released.next() || !released.getBoolean(1)) {
                        throw new IllegalStateException("contender " + contender + " did not hold the advisory lock");
                    }
                }
                rejoinSignals[contender].acquire();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (SQLException e) {
            // close() aborts the connections, which ends a pg_advisory_lock() that is still waiting.
            if (!closing) {
                throw new IllegalStateException("advisory contender " + contender + " failed", e);
            }
        }
    }

    @Override
    public void release(int contender) {
        releaseSignals[contender].release();
    }

    @Override
    public void rejoin(int contender) throws Exception {
        rejoinSignals[contender].release();
        awaitWaiters(CONTENDERS - 1);
    }

    /** Polls {@code pg_locks} every millisecond until {@code count} sessions wait for the lock. */
    private void awaitWaiters(int count) throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        try (PreparedStatement waiters = observer.prepareStatement(WAITERS)) {
            waiters.setLong(1, key);
            while (true) {
                try (ResultSet rs = waiters.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) >= count) {
                        return;
                    }
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("fewer than " + count + " sessions waiting for advisory lock "
                            + key);
                }
                Thread.sleep(1);
            }
        }
    }

    @Override
    public void close() {
        closing = true;
        for (Thread thread : threads) {
            if (thread != null) {
                thread.interrupt();
            }
        }
        for (Connection connection : connections) {
            abort(connection);
        }
        for (Thread thread : threads) {
            if (thread != null) {
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(5));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        abort(observer);
    }

    private static void abort(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.abort(Runnable::run);
        } catch (SQLException e) {
            // Ending the session is all that matters; the server drops its locks with it.
        }
    }
}

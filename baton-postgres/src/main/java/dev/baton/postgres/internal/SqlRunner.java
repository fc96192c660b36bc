package dev.baton.postgres.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.StoreTimeoutException;
import dev.baton.core.time.Clock;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a store's statements: a small HikariCP pool and as many daemon threads ({@code baton-pg-<n>-io-<k>}), so
 * JDBC's blocking calls never run on the caller's thread. Each call borrows a connection, runs, and completes its
 * future from the worker thread.
 *
 * <p><b>Nothing hangs past its timeouts.</b> Borrowing waits at most {@code connectTimeout} (HikariCP's
 * {@code connectionTimeout}); every statement runs under PostgreSQL's {@code statement_timeout}; and since a server
 * that is paused or cut off enforces nothing, each borrowed connection also gets a network timeout of
 * {@code statementTimeout} plus {@link PgFailures#networkSlack()}, after which the socket read fails and the
 * connection is discarded. A call that waited in the queue longer than all of that together is failed without
 * running: its caller gave up long ago, and running it late (an acquire, say) would only do harm.
 */
public final class SqlRunner implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SqlRunner.class);

    /** One unit of JDBC work on a borrowed connection (autocommit on, unless the work changes it). */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    private final HikariDataSource pool;
    private final PgDataSource connections;
    private final List<PgThreads> threads;
    /** All of a call's timeouts together: how long a queued call may wait, and how long close waits for threads. */
    private final Duration allTimeouts;
    private final ThreadPoolExecutor workers;
    private final PgFailures failures;
    private final Clock clock = Clock.system();
    private final int networkTimeoutMillis;
    private volatile boolean closed;

    private SqlRunner(HikariDataSource pool, PgDataSource connections, List<PgThreads> threads,
            ThreadPoolExecutor workers, PgFailures failures, Duration statementTimeout, Duration connectTimeout) {
        this.pool = pool;
        this.connections = connections;
        this.threads = threads;
        this.allTimeouts = connectTimeout.plus(statementTimeout).plus(PgFailures.networkSlack());
        this.workers = workers;
        this.failures = failures;
        this.networkTimeoutMillis = (int) Math.min(Integer.MAX_VALUE,
                statementTimeout.plus(PgFailures.networkSlack()).toMillis());
    }

    /**
     * Opens the pool and checks that one connection can be made.
     *
     * @throws StoreException naming the server and why it could not be used (unreachable, authentication, database)
     */
    public static SqlRunner open(PgTarget target, int storeId, int poolSize, Duration connectTimeout,
            Duration statementTimeout, String applicationName, PgFailures failures) {
        PgDataSource connections = PgDataSource.of(target, connectTimeout, statementTimeout, applicationName);
        // One direct attempt first: HikariCP would report a failure only after sleeping a second.
        try (Connection probe = connections.getConnection()) {
            probe.isValid(1);
        } catch (SQLException e) {
            connections.close();
            throw cannotConnect(failures, e);
        }
        HikariConfig config = new HikariConfig();
        config.setPoolName(PgThreads.PREFIX + storeId);
        config.setDataSource(connections);
        config.setConnectionInitSql("SET statement_timeout = " + statementTimeout.toMillis());
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(connectTimeout.toMillis());
        config.setValidationTimeout(Math.max(250, connectTimeout.toMillis() / 2));
        config.setInitializationFailTimeout(1);
        PgThreads poolThreads = PgThreads.forRole(storeId, "pool");
        config.setThreadFactory(poolThreads);
        config.setAutoCommit(true);
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(config);
        } catch (RuntimeException e) {
            connections.close();
            throw cannotConnect(failures, e);
        }
        PgThreads workerThreads = PgThreads.forRole(storeId, "io");
        ThreadPoolExecutor workers = new ThreadPoolExecutor(poolSize, poolSize, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), workerThreads);
        workers.allowCoreThreadTimeOut(true);
        // Started now rather than one per task for the first tasks, such as the acquire of a node that has just joined.
        workers.prestartAllCoreThreads();
        return new SqlRunner(pool, connections, List.of(poolThreads, workerThreads), workers, failures,
                statementTimeout, connectTimeout);
    }

    private static StoreException cannotConnect(PgFailures failures, Exception e) {
        String problem = failures.connectionProblem(e);
        return new StoreException(problem != null ? problem
                : "cannot connect to " + failures.target() + ": " + PgFailures.shortReason(e), e);
    }

    /** Runs {@code work} on a worker thread; the future fails with the contract's exceptions. Never blocks. */
    public <T> CompletableFuture<T> submit(String operation, Work<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (closed) {
            result.completeExceptionally(closedException(operation));
            return result;
        }
        try {
            workers.execute(new Task<>(operation, work, result, clock.nanoTime()));
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(closedException(operation));
        }
        return result;
    }

    /**
     * Runs {@code work} at once on the calling thread and on {@code connection}, which the caller owns (the LISTEN
     * connection, see {@link PgLeases#acquire}); the future is complete when this returns, failed with the contract's
     * exceptions.
     */
    public <T> CompletableFuture<T> runOn(Connection connection, String operation, Work<T> work) {
        if (closed) {
            return CompletableFuture.failedFuture(closedException(operation));
        }
        try {
            return CompletableFuture.completedFuture(work.run(connection));
        } catch (SQLException | RuntimeException e) {
            return CompletableFuture.failedFuture(closed ? closedException(operation)
                    : failures.translate(operation, e));
        }
    }

    /** Runs {@code work} on the calling thread: for start-up, which is allowed to block. */
    public <T> T runNow(String operation, Work<T> work) {
        try (Connection connection = pool.getConnection()) {
            connection.setNetworkTimeout(Runnable::run, networkTimeoutMillis);
            return work.run(connection);
        } catch (SQLException | RuntimeException e) {
            throw failures.translate(operation, e);
        }
    }

    /**
     * Prepares every connection for {@code warmer}'s statements (see {@link PgLeases#warm}): the one the pool holds
     * now, on the calling thread, and each one opened later, before the pool hands it out. So a store's first lease
     * statements on any connection, such as the acquire of a node that has just joined, do not run cold. Call once
     * the schema exists; blocks for one warm-up.
     */
    public void warmConnections(Work<?> warmer) {
        connections.warmWith(warmer);
        try {
            runNow("warm up", warmer);
        } catch (StoreException e) {
            log.debug("Warming up the first connection to {} failed: {}", failures.target(), e.getMessage());
        }
    }

    public PgFailures failures() {
        return failures;
    }

    /**
     * Fails calls still queued, aborts statements in flight (by closing the pool, which aborts borrowed
     * connections) and waits for the workers to finish. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Runnable> pending = workers.shutdownNow();
        for (Runnable task : pending) {
            if (task instanceof Task<?> queued) {
                queued.abandon();
            }
        }
        try {
            pool.close();
        } catch (RuntimeException e) {
            log.debug("Closing the pool of {} failed: {}", failures.target(), e.toString());
        } finally {
            connections.close();
        }
        try {
            // HikariCP stops its threads without waiting for them; one may still be finishing a connection attempt.
            boolean stopped = workers.awaitTermination(allTimeouts.toMillis(), TimeUnit.MILLISECONDS);
            for (PgThreads factory : threads) {
                stopped &= factory.awaitTermination(allTimeouts);
            }
            if (!stopped) {
                log.warn("Threads of {} did not stop within {} ms", failures.target(), allTimeouts.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private StoreException closedException(String operation) {
        return new StoreException(operation + " on " + failures.target() + " failed: the store is closed");
    }

    private final class Task<T> implements Runnable {
        private final String operation;
        private final Work<T> work;
        private final CompletableFuture<T> result;
        private final long queuedAt;

        Task(String operation, Work<T> work, CompletableFuture<T> result, long queuedAt) {
            this.operation = operation;
            this.work = work;
            this.result = result;
            this.queuedAt = queuedAt;
        }

        @Override
        public void run() {
            long waited = clock.nanoTime() - queuedAt;
            if (waited > allTimeouts.toNanos()) {
                result.completeExceptionally(new StoreTimeoutException(operation + " on " + failures.target()
                        + " was not started: it waited " + TimeUnit.NANOSECONDS.toMillis(waited)
                        + " ms for a free connection"));
                return;
            }
            T value;
            try (Connection connection = pool.getConnection()) {
                connection.setNetworkTimeout(Runnable::run, networkTimeoutMillis);
                value = work.run(connection);
            } catch (SQLException | RuntimeException e) {
                result.completeExceptionally(closed ? closedException(operation) : failures.translate(operation, e));
                return;
            }
            result.complete(value);
        }

        void abandon() {
            result.completeExceptionally(closedException(operation));
        }
    }
}

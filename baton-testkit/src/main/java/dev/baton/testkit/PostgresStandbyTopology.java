package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A private PostgreSQL primary with a streaming hot standby for tests. The primary is a {@link PostgresServer}
 * ({@link #primary()}: kill, pause, restart it as usual); the standby is a copy made with {@code pg_basebackup -R}
 * that streams the primary's WAL and answers read-only queries, on its own free loopback port, run as the same
 * account. Both accept user {@link #user()} with {@link #password()} on database {@link #database()}.
 *
 * <p>Faults: {@link #killPrimary()}, {@link #promoteStandby()} (the standby becomes a writable primary on a new
 * timeline), {@link #pauseReplay()} (a standby that receives WAL but applies none of it, so reads on it lag),
 * {@link #killStandby()} / {@link #restartStandby()}. Needs an installed PostgreSQL 12 or newer (the
 * {@code pg_basebackup} beside {@code postgres}; the embedded bundle has none): see {@link #whyUnavailable()}.
 * Everything is stopped and deleted by {@link #close()}, or at JVM exit if a test forgot. Thread-safe.
 *
 * <pre>{@code
 * try (PostgresStandbyTopology pg = PostgresStandbyTopology.start()) {
 *     Connection c = DriverManager.getConnection(pg.multiHostJdbcUrl(), pg.user(), pg.password());
 *     ...
 * }
 * }</pre>
 */
public final class PostgresStandbyTopology implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final String BASEBACKUP = "pg_basebackup";
    private static final Set<String> TARGET_SERVER_TYPES =
            Set.of("any", "primary", "secondary", "preferSecondary", "preferPrimary");
    private static final int LAUNCH_ATTEMPTS = 5;
    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);
    private static final long POLL_MILLIS = 20;
    private static final int LOGIN_TIMEOUT_SECONDS = 5;

    private final PostgresServer primary;
    private final PostgresCluster standby;
    private int standbyPort;
    private Process standbyProcess;
    private long standbyPid;
    private boolean closed;

    private PostgresStandbyTopology(PostgresServer primary, PostgresCluster standby) {
        this.primary = primary;
        this.standby = standby;
    }

    /**
     * Why a topology cannot start on this machine ("pg_basebackup is not in /usr/lib/...; install ..."), or empty if
     * it can. For a JUnit assumption.
     */
    public static Optional<String> whyUnavailable() {
        Path dir;
        try {
            dir = PostgresBinaries.resolve().directory();
        } catch (RuntimeException e) {
            return Optional.of("no PostgreSQL binaries: " + e.getMessage());
        }
        return Files.isExecutable(dir.resolve(BASEBACKUP)) ? Optional.empty()
                : Optional.of(BASEBACKUP + " is not in " + dir + " (the PostgreSQL bundled in a Maven artifact has "
                        + "none): install the Debian package postgresql");
    }

    /**
     * Starts the primary, copies it with {@code pg_basebackup -R}, starts the standby and waits until it streams.
     *
     * @throws IllegalStateException if {@link #whyUnavailable()} says why not, or a step fails (with the log's tail)
     */
    public static PostgresStandbyTopology start() {
        return start(PostgresServer.builder());
    }

    /**
     * As {@link #start()}, with {@code password} for user {@code baton} on both servers instead of a random one: a
     * second topology that clients with the first one's credentials can move to.
     */
    public static PostgresStandbyTopology start(String password) {
        return start(PostgresServer.builder().password(password));
    }

    private static PostgresStandbyTopology start(PostgresServer.Builder primaryBuilder) {
        whyUnavailable().ifPresent(reason -> {
            throw new IllegalStateException(reason);
        });
        Path dir;
        try {
            dir = Files.createTempDirectory("baton-postgres-standby-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for the standby", e);
        }
        PostgresServer primary;
        try {
            primary = primaryBuilder.start();
        } catch (RuntimeException e) {
            ServerProcesses.deleteRecursively(dir);
            throw e;
        }
        StandbyCopy copy = StandbyCopy.of(dir);
        PostgresStandbyTopology topology = new PostgresStandbyTopology(primary, copy.cluster());
        TopologyCleanup.register(topology);
        try {
            synchronized (topology) {
                copy.baseBackup(primary);
                topology.launchStandby(0);
            }
            topology.awaitStreaming();
            return topology;
        } catch (RuntimeException e) {
            topology.close();
            throw e;
        }
    }

    /** The primary server; after {@link #promoteStandby()} it is the former primary. */
    public PostgresServer primary() {
        return primary;
    }

    /** Always {@code baton}, as on {@link PostgresServer}. */
    public String user() {
        return primary.user();
    }

    /** The password of {@link #user()}, the same on both servers. */
    public String password() {
        return primary.password();
    }

    /** Always {@code baton}. */
    public String database() {
        return primary.database();
    }

    /** {@code jdbc:postgresql://127.0.0.1:PORT/baton} of the primary. */
    public String primaryJdbcUrl() {
        return primary.jdbcUrl();
    }

    /** The standby's port; stays the same across {@link #restartStandby()}. */
    public synchronized int standbyPort() {
        return standbyPort;
    }

    /** {@code jdbc:postgresql://127.0.0.1:PORT/baton} of the standby. */
    public String standbyJdbcUrl() {
        return "jdbc:postgresql://" + HOST + ":" + standbyPort() + "/" + database();
    }

    /** {@code jdbc:postgresql://127.0.0.1:P1,127.0.0.1:P2/baton?targetServerType=primary}: whichever is writable. */
    public String multiHostJdbcUrl() {
        return multiHostJdbcUrl("primary");
    }

    /**
     * The pgjdbc multi-host URL of both servers, primary first, with {@code targetServerType} one of {@code any},
     * {@code primary}, {@code secondary}, {@code preferSecondary}, {@code preferPrimary}.
     */
    public String multiHostJdbcUrl(String targetServerType) {
        if (!TARGET_SERVER_TYPES.contains(targetServerType)) {
            throw new IllegalArgumentException("targetServerType must be one of " + TARGET_SERVER_TYPES + ", was '"
                    + targetServerType + "'");
        }
        return "jdbc:postgresql://" + HOST + ":" + primary.port() + "," + HOST + ":" + standbyPort() + "/"
                + database() + "?targetServerType=" + targetServerType;
    }

    /** Kills the primary's processes with SIGKILL, as a crash ({@link PostgresServer#kill()}). */
    public void killPrimary() {
        primary.kill();
    }

    /**
     * Promotes the standby ({@code SELECT pg_promote()}, which waits up to 60 s) and waits until it accepts writes.
     * Nothing stops the former primary: restart it and there are two primaries, as after a real failover.
     */
    public void promoteStandby() {
        if (!Boolean.TRUE.equals(queryStandby("SELECT pg_promote(true, 60)"))) {
            throw new IllegalStateException("the standby did not finish its promotion within 60 s; log tail:\n"
                    + standby.logTail());
        }
        TopologyAwait.until("the promoted standby to leave recovery", SETTLE_TIMEOUT,
                () -> Boolean.FALSE.equals(queryStandby("SELECT pg_is_in_recovery()")), standby::logTail);
    }

    /** Whether the standby is still a standby ({@code pg_is_in_recovery()}), i.e. not promoted. */
    public boolean isStandbyInRecovery() {
        return Boolean.TRUE.equals(queryStandby("SELECT pg_is_in_recovery()"));
    }

    /**
     * Stops the standby from applying WAL ({@code pg_wal_replay_pause()}): it keeps receiving and acknowledging it
     * (the primary sees it streaming) but reads on it show the data as of the pause, until {@link #resumeReplay()}.
     * A promotion ends the pause and applies what was received first.
     */
    public void pauseReplay() {
        queryStandby("SELECT pg_wal_replay_pause()");
        TopologyAwait.until("WAL replay to pause", SETTLE_TIMEOUT,
                () -> Boolean.TRUE.equals(queryStandby("SELECT pg_is_wal_replay_paused()")), standby::logTail);
    }

    /** Lets the standby apply WAL again after {@link #pauseReplay()}. */
    public void resumeReplay() {
        queryStandby("SELECT pg_wal_replay_resume()");
    }

    /**
     * Waits (up to 30 s) until the standby has applied everything the primary had written when this was called,
     * e.g. before reading a write on the standby.
     */
    public void awaitStandbyCaughtUp() {
        Object lsn = query(primaryJdbcUrl(), "SELECT pg_current_wal_lsn()::text");
        TopologyAwait.until("the standby to replay up to " + lsn, SETTLE_TIMEOUT, () -> Boolean.TRUE.equals(
                queryStandby("SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn")),
                () -> "standby replayed up to " + queryStandby("SELECT pg_last_wal_replay_lsn()::text"));
    }

    /** Kills the standby's processes with SIGKILL. No-op if it is not running. */
    public synchronized void killStandby() {
        if (!isStandbyRunning()) {
            return;
        }
        List<Long> tree = PostgresProcesses.tree(standbyPid);
        PostgresProcesses.signal("KILL", tree);
        if (!ServerProcesses.awaitExit(standbyProcess, EXIT_TIMEOUT)
                || !PostgresProcesses.awaitGone(tree, EXIT_TIMEOUT)) {
            throw new IllegalStateException("standby processes " + tree + " did not all die after SIGKILL");
        }
    }

    /** Shuts the standby down fast (SIGINT) and waits for it. No-op if it is not running. */
    public synchronized void stopStandby() {
        if (!isStandbyRunning()) {
            return;
        }
        PostgresProcesses.signal("INT", List.of(standbyPid));
        if (!ServerProcesses.awaitExit(standbyProcess, EXIT_TIMEOUT)) {
            killStandby();
        }
    }

    /** Starts the standby again on its port; it resumes streaming from where it was (or runs as a primary). */
    public synchronized void restartStandby() {
        requireOpen();
        stopStandby();
        launchStandby(standbyPort);
    }

    /** True while the standby's postmaster runs. */
    public synchronized boolean isStandbyRunning() {
        return standbyProcess != null && standbyProcess.isAlive();
    }

    /** Stops the standby, then the primary, and deletes both directories. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stopStandby();
        } finally {
            try {
                primary.close();
            } finally {
                TopologyCleanup.forget(this);
                standby.delete();
            }
        }
    }

    @Override
    public String toString() {
        return "PostgresStandbyTopology[primary=" + primaryJdbcUrl() + ", standby=" + standbyJdbcUrl() + "]";
    }

    /** Launches the standby's postmaster on {@code port} (0: a free one) and waits until it accepts connections. */
    private void launchStandby(int port) {
        IllegalStateException failure = null;
        for (int attempt = 1; attempt <= LAUNCH_ATTEMPTS; attempt++) {
            int candidate = port != 0 ? port : ServerProcesses.freePort(HOST);
            ProcessBuilder postmaster = standby.postmaster(candidate);
            try {
                Process started = postmaster.start();
                started.getOutputStream().close();
                standbyProcess = started;
                standbyPid = standby.awaitReady(started, candidate, "the standby", READY_TIMEOUT);
                standbyPort = candidate;
                return;
            } catch (IOException e) {
                throw new IllegalStateException("cannot start " + String.join(" ", postmaster.command()), e);
            } catch (IllegalStateException e) {
                failure = e;
                if (e.getMessage() == null || !e.getMessage().contains("Address already in use")) {
                    break;
                }
                ServerProcesses.pauseBeforeRetry(POLL_MILLIS * 10, "the standby");
            }
        }
        throw failure;
    }

    private void awaitStreaming() {
        TopologyAwait.until("the standby to stream from the primary", SETTLE_TIMEOUT, () -> Long.valueOf(1).equals(
                query(primaryJdbcUrl(), "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")),
                () -> "standby log tail:\n" + standby.logTail());
    }

    private Object queryStandby(String sql) {
        return query(standbyJdbcUrl(), sql);
    }

    /** The first column of the first row of {@code sql}, or null; a failure as an {@link IllegalStateException}. */
    private Object query(String url, String sql) {
        DriverManager.setLoginTimeout(LOGIN_TIMEOUT_SECONDS);
        try (Connection connection = DriverManager.getConnection(url, user(), password());
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            return rows.next() ? rows.getObject(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " on " + url + " failed: " + e.getMessage(), e);
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("PostgresStandbyTopology is closed");
        }
    }

    /** How the standby is made: its directory, the account it runs as, and the base backup into it. */
    private record StandbyCopy(PostgresBinaries binaries, PostgresAccount account, Path dir,
            PostgresCluster cluster) {

        static StandbyCopy of(Path dir) {
            PostgresBinaries binaries = PostgresBinaries.resolve();
            PostgresAccount account = PostgresAccount.current();
            return new StandbyCopy(binaries, account, dir, new PostgresCluster(binaries, account, dir));
        }

        /**
         * {@code pg_basebackup -R -X stream} of {@code primary} into {@code data/} (which writes
         * {@code standby.signal} and the {@code primary_conninfo} with the password), then TCP only: the copied
         * configuration names the primary's socket directory.
         */
        void baseBackup(PostgresServer primary) {
            account.requireReachable(dir, "standby directory");
            account.handOver(dir);
            Path data = dir.resolve("data");
            List<String> command = account.command(List.of(binaries.directory().resolve(BASEBACKUP).toString(),
                    "-h", HOST, "-p", Integer.toString(primary.port()), "-U", primary.user(), "-D", data.toString(),
                    "-R", "-X", "stream", "-c", "fast", "--no-sync"));
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("postgres.log").toFile()));
            builder.environment().keySet().removeIf(name -> name.startsWith("PG"));
            builder.environment().put("LC_ALL", "C");
            builder.environment().put("PGPASSWORD", primary.password());
            try {
                Process backup = builder.start();
                backup.getOutputStream().close();
                if (!backup.waitFor(SETUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    backup.destroyForcibly();
                    throw new IllegalStateException(BASEBACKUP + " did not finish within " + SETUP_TIMEOUT.toSeconds()
                            + " s; log tail:\n" + cluster.logTail());
                }
                if (backup.exitValue() != 0) {
                    throw new IllegalStateException(BASEBACKUP + " failed with exit code " + backup.exitValue()
                            + "; log tail:\n" + cluster.logTail());
                }
                Files.writeString(data.resolve("postgresql.conf"),
                        "\n# Added by Baton's PostgresStandbyTopology: the standby listens on TCP only.\n"
                                + "unix_socket_directories = ''\n",
                        StandardCharsets.UTF_8, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new IllegalStateException("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted during " + BASEBACKUP, e);
            }
        }
    }
}

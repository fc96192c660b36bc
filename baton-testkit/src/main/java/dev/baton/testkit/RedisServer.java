package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * A private {@code redis-server} process for tests: its own free loopback port, its own temporary directory, no
 * persistence unless asked. Tests never rely on a Redis someone else started (DESIGN §7), and can inject the faults
 * the election must survive: {@link #kill()}, {@link #stop()} + {@link #restart()} (a server that lost its data), and
 * {@link #pause()} (a hung server that still accepts TCP connections).
 *
 * <p>It can also come back with an <em>older</em> state, as a production Redis does when it is restored from an RDB
 * snapshot or its AOF lost the last second before a crash: {@link #snapshot()} + {@link #restartFrom(Snapshot)},
 * {@link #aofMark()} + {@link #restartWithAofTruncatedTo(AofMark)} (with {@link Builder#appendOnly(boolean)}), and
 * {@link #restartEmpty()}. Every restart keeps the port, so clients reconnect on their own. Built
 * {@link Builder#withStoreClock() with a store clock}, its wall clock (key expiry) can be stepped and skewed without
 * touching the machine's ({@link #storeClock()}).
 *
 * <p>Every server started is stopped and its directory deleted by {@link #close()}, and by a JVM shutdown hook if a
 * test forgot or failed before closing it. Instances are thread-safe.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start()) {
 *     CoordinationStore store = RedisStore.connect(redis.uri());
 *     ...
 * }
 * }</pre>
 */
public final class RedisServer implements AutoCloseable {

    private static final String HOST = RedisLauncher.HOST;
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);
    private static final long POLL_MILLIS = 20;
    private static final Duration PERSISTENCE_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);
    private static final String SNAPSHOTS = "snapshots";

    private static final Set<RedisServer> LIVE = ConcurrentHashMap.newKeySet();
    private static final Thread SHUTDOWN_HOOK = new Thread(RedisServer::closeAllLive, "baton-redis-server-cleanup");

    static {
        Runtime.getRuntime().addShutdownHook(SHUTDOWN_HOOK);
    }

    private final boolean appendOnly;
    private final Path dir;
    private final RedisDataFiles files;
    private final RedisLauncher launcher;
    private final StoreClock clock;
    private int port;
    private int snapshots;
    private Process process;
    private boolean paused;
    private boolean closed;

    private RedisServer(Path binary, int port, boolean appendOnly, Path dir, StoreClock clock) {
        this.port = port;
        this.appendOnly = appendOnly;
        this.dir = dir;
        this.clock = clock;
        this.files = new RedisDataFiles(dir);
        this.launcher = new RedisLauncher(binary, dir, clock);
    }

    /** Starts a fresh private server on a free loopback port, without persistence. */
    public static RedisServer start() {
        return builder().start();
    }

    /** A builder for a server with a fixed port, persistence or a specific binary. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The {@code redis-server} executable used by default: the one on {@code PATH}, else the Redis 7.0.15 binary
     * shipped in {@code org.signal:embedded-redis}, extracted once per JVM to an executable temporary file.
     */
    public static Path binary() {
        return RedisBinary.resolve();
    }

    /**
     * Why a server with a {@link Builder#withStoreClock() store clock} cannot start here with the default
     * {@link #binary()} ("no C compiler ...", "not a dynamically linked ELF executable ..."), or empty if it can. For a
     * JUnit assumption. Compiles the clock's library on first use.
     */
    public static Optional<String> whyStoreClockUnavailable() {
        return StoreClockLibrary.whyUnavailable(binary());
    }

    /** Always {@code 127.0.0.1}: the server binds loopback only. */
    public String host() {
        return HOST;
    }

    /** The port the server listens on; stays the same across {@link #restart()}. */
    public synchronized int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:PORT}, the form {@code RedisStore.connect} takes. */
    public String uri() {
        return "redis://" + HOST + ":" + port();
    }

    /** The operating-system process id of the current (or last) server process. */
    public synchronized long pid() {
        return requireProcess().pid();
    }

    /** True while the server process is alive, paused or not. */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Stops the server gracefully (SIGTERM, so an AOF is flushed) and waits for it to exit. No-op if not running. */
    public synchronized void stop() {
        if (!isRunning()) {
            return;
        }
        resume();
        process.destroy();
        if (!ServerProcesses.awaitExit(process, EXIT_TIMEOUT)) {
            kill();
        }
    }

    /** Kills the server with SIGKILL, as a crash would, and waits for it to exit. No-op if not running. */
    public synchronized void kill() {
        if (!isRunning()) {
            return;
        }
        Signals.send(process.pid(), "KILL");
        paused = false;
        if (!ServerProcesses.awaitExit(process, EXIT_TIMEOUT)) {
            throw new IllegalStateException("redis-server " + process.pid() + " did not die after SIGKILL");
        }
    }

    /**
     * Starts the server again on the same port and directory, stopping it first (SIGTERM) if it is still running.
     * Without {@link Builder#appendOnly(boolean) AOF} the new server starts empty, like a production Redis that lost
     * its data (a {@link #snapshot()} is kept aside and never loaded by this method); with AOF it loads the AOF.
     * {@link #kill()} followed by {@code restart()} is a crash and restart; on a server without AOF that is also what
     * {@link #restartEmpty()} does.
     */
    public synchronized void restart() {
        requireOpen();
        stop();
        launch(appendOnly);
    }

    /**
     * Kills the server with SIGKILL if it runs, deletes every snapshot and AOF in its directory (snapshots taken with
     * {@link #snapshot()} are kept aside and survive) and starts it again empty on the same port, with the same
     * configuration: a Redis that lost all its data, AOF or not.
     */
    public synchronized void restartEmpty() {
        requireOpen();
        kill();
        files.removeAll();
        launch(appendOnly);
    }

    /**
     * Takes an RDB snapshot of the running server, as a production Redis does on its {@code save} schedule: runs
     * {@code BGSAVE} (scheduled after an AOF rewrite if one is running), waits up to 20 s until it completed
     * ({@code rdb_bgsave_in_progress:0}, {@code rdb_last_bgsave_status:ok}), and copies the {@code dump.rdb} aside.
     * Writes acknowledged before this call are in the snapshot. The snapshot lives in the server's directory until
     * {@link #close()}; hand it to {@link #restartFrom(Snapshot)} to bring the server back to it.
     *
     * @throws IllegalStateException if the server is not running or the save failed or did not finish in time
     */
    public synchronized Snapshot snapshot() {
        requireOpen();
        requireRunning();
        // Without save points Redis never writes dump.rdb by itself, so once it exists again our BGSAVE wrote it.
        RedisDataFiles.delete(files.dump());
        command("BGSAVE", "SCHEDULE");
        awaitPersistence("BGSAVE", info -> {
            if (!Files.isRegularFile(files.dump()) || !"0".equals(info.get("rdb_bgsave_in_progress"))) {
                return false;
            }
            if (!"ok".equals(info.get("rdb_last_bgsave_status"))) {
                throw new IllegalStateException("BGSAVE failed on " + this + "; log tail:\n" + logTail());
            }
            return true;
        });
        snapshots++;
        Path copy = dir.resolve(SNAPSHOTS).resolve("snapshot-" + snapshots + ".rdb");
        RedisDataFiles.copy(files.dump(), copy);
        RedisDataFiles.delete(files.dump());
        return new Snapshot(this, copy, snapshots);
    }

    /**
     * Brings the server back to {@code snapshot}, as an operator restoring a backup or a Redis restarting from its
     * last RDB would: kills it with SIGKILL if it runs, removes every AOF and puts the snapshot in place as the only
     * data, starts it again on the same port and waits until it answers PING. A server with
     * {@link Builder#appendOnly(boolean) AOF} loads the snapshot with AOF off, then turns AOF on again and waits until
     * the AOF holds the restored data, so later restarts keep it.
     *
     * @throws IllegalArgumentException if {@code snapshot} was taken by another server
     */
    public synchronized void restartFrom(Snapshot snapshot) {
        requireOpen();
        if (snapshot == null || snapshot.server != this) {
            throw new IllegalArgumentException("snapshot " + snapshot + " was not taken by " + this);
        }
        kill();
        files.removeAll();
        RedisDataFiles.copy(snapshot.file, files.dump());
        // Redis with AOF on loads only the AOF, never dump.rdb: load the snapshot without it, then switch it on, which
        // rewrites the AOF from the loaded data.
        launch(false);
        if (appendOnly) {
            command("CONFIG", "SET", "appendonly", "yes");
            awaitPersistence("the AOF rewrite after loading " + snapshot, info -> {
                if (!"1".equals(info.get("aof_enabled")) || !"0".equals(info.get("aof_rewrite_in_progress"))
                        || !"0".equals(info.get("aof_rewrite_scheduled")) || files.incrementalAof().isEmpty()) {
                    return false;
                }
                if (!"ok".equals(info.get("aof_last_bgrewrite_status"))) {
                    throw new IllegalStateException("AOF rewrite failed on " + this + "; log tail:\n" + logTail());
                }
                return true;
            });
        }
        // Loaded; without it in place a later restart() of a server without AOF starts empty, as documented.
        RedisDataFiles.delete(files.dump());
    }

    /**
     * Marks how far the AOF reaches now, for {@link #restartWithAofTruncatedTo(AofMark)}: waits (up to 20 s) until
     * every acknowledged write is in the file ({@code aof_buffer_length:0}, no rewrite running), then records the
     * length of the AOF's incremental file (the last {@code type i} file in Redis 7's manifest, or Redis 6's single
     * file). Call it after the writes you want to keep. Automatic AOF rewrites are off on these servers, so the
     * file stays the same until a restart.
     *
     * @throws IllegalStateException if the server runs without AOF or is not running
     */
    public synchronized AofMark aofMark() {
        requireOpen();
        requireAppendOnly();
        requireRunning();
        awaitPersistence("the AOF buffer to reach the file", info -> "0".equals(info.get("aof_buffer_length"))
                && "0".equals(info.get("aof_rewrite_in_progress")) && "0".equals(info.get("aof_rewrite_scheduled")));
        Path incremental = files.incrementalAof()
                .orElseThrow(() -> new IllegalStateException("no append-only file in " + dir));
        return new AofMark(this, incremental, RedisDataFiles.size(incremental));
    }

    /**
     * Crashes the server and brings it back with its AOF cut at {@code mark}, which is what {@code appendfsync
     * everysec} losing its last second looks like: SIGKILL, truncate the incremental file to the marked length,
     * start again on the same port (with {@code aof-load-truncated yes}) and wait until it answers PING. Writes made
     * after the mark are gone; those before it are back.
     *
     * @throws IllegalArgumentException if {@code mark} was taken by another server
     * @throws IllegalStateException if the AOF was replaced or is shorter than the mark
     */
    public synchronized void restartWithAofTruncatedTo(AofMark mark) {
        requireOpen();
        requireAppendOnly();
        if (mark == null || mark.server != this) {
            throw new IllegalArgumentException("AOF mark " + mark + " was not taken by " + this);
        }
        kill();
        Path current = files.incrementalAof().orElse(null);
        if (!mark.file.equals(current)) {
            throw new IllegalStateException("the AOF now writes to " + current + ", not " + mark.file
                    + " (restarted or rewritten since the mark)");
        }
        long length = RedisDataFiles.size(current);
        if (length < mark.length) {
            throw new IllegalStateException(current + " has " + length + " bytes, fewer than the mark's "
                    + mark.length);
        }
        RedisDataFiles.truncate(current, mark.length);
        launch(true);
    }

    /** Freezes the server with SIGSTOP: it keeps its socket and accepts connections but answers nothing. */
    public synchronized void pause() {
        requireOpen();
        if (!isRunning()) {
            throw new IllegalStateException("redis-server is not running");
        }
        if (!paused) {
            Signals.send(process.pid(), "STOP");
            paused = true;
        }
    }

    /** Lets a {@link #pause() paused} server run again (SIGCONT). No-op if it is not paused. */
    public synchronized void resume() {
        if (paused && isRunning()) {
            Signals.send(process.pid(), "CONT");
        }
        paused = false;
    }

    /** Resumes, stops and deletes the server's directory. Idempotent; also run by a JVM shutdown hook. */
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
            ServerProcesses.deleteRecursively(dir);
            if (clock != null) {
                clock.delete();
            }
        }
    }

    /**
     * The server's wall clock, to step or skew: the time {@code PX} expiry and {@code TIME} read.
     *
     * @throws IllegalStateException if the server was not built {@link Builder#withStoreClock() with a store clock}
     */
    public StoreClock storeClock() {
        if (clock == null) {
            throw new IllegalStateException(this + " reads the machine's clock; build it withStoreClock()");
        }
        return clock;
    }

    /** Whether the server runs with an AOF ({@link Builder#appendOnly(boolean)}). */
    public boolean isAppendOnly() {
        return appendOnly;
    }

    /** The server's working directory (config, log, AOF); package-private for tests of the launcher. */
    Path directory() {
        return dir;
    }

    @Override
    public String toString() {
        return "RedisServer[" + uri() + ", dir=" + dir + "]";
    }

    /** Starts a server process on this server's port (the first time: a free one) and keeps it. */
    private void launch(boolean aof) {
        RedisLauncher.Launched launched = launcher.launch(port, aof);
        process = launched.process();
        port = launched.port();
    }

    private String logTail() {
        return launcher.logTail();
    }

    /** Runs one command on the server, turning a socket failure into an {@link IllegalStateException}. */
    private String command(String... args) {
        try {
            return RespProbe.call(HOST, port, COMMAND_TIMEOUT, args);
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", args) + " failed on " + this + ": " + e.getMessage(), e);
        }
    }

    /** {@code INFO persistence} as field name to value. */
    private Map<String, String> persistenceInfo() {
        Map<String, String> fields = new HashMap<>();
        for (String line : command("INFO", "persistence").split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    /** Polls {@code INFO persistence} until {@code done} says so, for at most {@link #PERSISTENCE_TIMEOUT}. */
    private void awaitPersistence(String what, Predicate<Map<String, String>> done) {
        long deadline = System.nanoTime() + PERSISTENCE_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited while waiting for " + what + "; log tail:\n"
                        + logTail());
            }
            if (done.test(persistenceInfo())) {
                return;
            }
            ServerProcesses.waitQuietly(process, POLL_MILLIS, "redis-server");
        }
        throw new IllegalStateException(what + " did not finish within " + PERSISTENCE_TIMEOUT.toSeconds()
                + " s on " + this + "; INFO persistence: " + persistenceInfo());
    }

    private void requireRunning() {
        if (!isRunning()) {
            throw new IllegalStateException("redis-server is not running");
        }
        if (paused) {
            throw new IllegalStateException("redis-server is paused; resume() it first");
        }
    }

    private void requireAppendOnly() {
        if (!appendOnly) {
            throw new IllegalStateException(this + " runs without AOF; build it with appendOnly(true)");
        }
    }

    private Process requireProcess() {
        if (process == null) {
            throw new IllegalStateException("redis-server was never started");
        }
        return process;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("RedisServer is closed");
        }
    }

    private static void closeAllLive() {
        for (RedisServer server : List.copyOf(LIVE)) {
            try {
                server.close();
            } catch (RuntimeException e) {
                System.err.println("could not clean up " + server + ": " + e);
            }
        }
    }

    /** Options for a private server; {@link #start()} launches it. */
    public static final class Builder {

        private int port;
        private boolean appendOnly;
        private Path binary;
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

        /** The same as {@link #appendOnly(boolean)}: whether data survives {@link RedisServer#restart()}. */
        public Builder persistence(boolean persistence) {
            return appendOnly(persistence);
        }

        /**
         * Whether the server keeps an append-only file ({@code appendonly yes}, {@code appendfsync everysec}; Redis
         * 7's multi-part AOF in {@code appendonlydir/}), so data survives {@link RedisServer#restart()} and
         * {@link RedisServer#aofMark()} works. Automatic rewrites are off. RDB snapshots stay possible either way
         * ({@link RedisServer#snapshot()}). Default off.
         */
        public Builder appendOnly(boolean appendOnly) {
            this.appendOnly = appendOnly;
            return this;
        }

        /** A specific {@code redis-server} executable; default {@link RedisServer#binary()}. */
        public Builder binary(Path binary) {
            this.binary = binary;
            return this;
        }

        /**
         * Runs the server on a {@link StoreClock} of its own, which {@link RedisServer#storeClock()} steps and skews
         * (key expiry and {@code TIME} follow it; the machine's clock is not touched). Needs Linux, a C compiler and
         * a dynamically linked binary ({@link RedisServer#whyStoreClockUnavailable()}). Default off.
         */
        public Builder withStoreClock() {
            this.storeClock = true;
            return this;
        }

        /**
         * Launches the server and waits until it answers PING (and is the process we started).
         *
         * @throws StoreClock.UnavailableException if a store clock was asked for and cannot run here
         */
        public RedisServer start() {
            Path executable = binary != null ? binary : RedisServer.binary();
            StoreClock clock = null;
            if (storeClock) {
                StoreClockLibrary.requireUsableWith(executable);
                clock = StoreClock.create();
            }
            Path dir;
            try {
                dir = Files.createTempDirectory("baton-redis-");
            } catch (IOException e) {
                if (clock != null) {
                    clock.delete();
                }
                throw new UncheckedIOException("cannot create a temporary directory for redis-server", e);
            }
            RedisServer server = new RedisServer(executable, port, appendOnly, dir, clock);
            LIVE.add(server);
            try {
                synchronized (server) {
                    server.launch(server.appendOnly);
                }
                return server;
            } catch (RuntimeException e) {
                server.close();
                throw e;
            }
        }
    }

    /**
     * An RDB snapshot taken by {@link RedisServer#snapshot()}: an opaque handle to a copy of {@code dump.rdb} kept in
     * the server's directory. Only the server that took it can {@link RedisServer#restartFrom(Snapshot) restart}
     * from it, as often as wanted.
     */
    public static final class Snapshot {

        private final RedisServer server;
        private final Path file;
        private final int number;

        private Snapshot(RedisServer server, Path file, int number) {
            this.server = server;
            this.file = file;
            this.number = number;
        }

        @Override
        public String toString() {
            return "Snapshot[" + number + " of " + server.uri() + "]";
        }
    }

    /**
     * How far a server's AOF reached when {@link RedisServer#aofMark()} was called: the incremental file and its
     * length in bytes. Only the server that took it can {@link RedisServer#restartWithAofTruncatedTo(AofMark) cut}
     * its AOF back to it.
     */
    public static final class AofMark {

        private final RedisServer server;
        private final Path file;
        private final long length;

        private AofMark(RedisServer server, Path file, long length) {
            this.server = server;
            this.file = file;
            this.length = length;
        }

        /** The marked length of the incremental AOF file, in bytes. */
        public long length() {
            return length;
        }

        @Override
        public String toString() {
            return "AofMark[" + file.getFileName() + " at " + length + " bytes of " + server.uri() + "]";
        }
    }
}

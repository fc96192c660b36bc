package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A private {@code redis-server} process for tests: its own free loopback port, its own temporary directory, no
 * persistence unless asked. Tests never rely on a Redis someone else started (DESIGN §7), and can inject the faults
 * the election must survive: {@link #kill()}, {@link #stop()} + {@link #restart()} (a server that lost its data), and
 * {@link #pause()} (a hung server that still accepts TCP connections).
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

    private static final String HOST = "127.0.0.1";
    private static final String LOG_FILE = "redis.log";
    private static final String CONFIG_FILE = "redis.conf";
    private static final int LAUNCH_ATTEMPTS = 5;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration PING_TIMEOUT = Duration.ofMillis(250);
    private static final long POLL_MILLIS = 20;
    private static final long RETRY_PAUSE_MILLIS = 200;
    private static final int LOG_TAIL_LINES = 30;

    private static final Set<RedisServer> LIVE = ConcurrentHashMap.newKeySet();
    private static final Thread SHUTDOWN_HOOK = new Thread(RedisServer::closeAllLive, "baton-redis-server-cleanup");

    static {
        Runtime.getRuntime().addShutdownHook(SHUTDOWN_HOOK);
    }

    private final Path binary;
    private final boolean persistence;
    private final Path dir;
    private int port;
    private Process process;
    private boolean paused;
    private boolean closed;

    private RedisServer(Path binary, int port, boolean persistence, Path dir) {
        this.binary = binary;
        this.port = port;
        this.persistence = persistence;
        this.dir = dir;
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
     * Starts the server again on the same port and directory, stopping it first if it is still running. Without
     * persistence the new server starts empty, like a production Redis that lost its data.
     */
    public synchronized void restart() {
        requireOpen();
        stop();
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
        }
    }

    /** The server's working directory (config, log, AOF); package-private for tests of the launcher. */
    Path directory() {
        return dir;
    }

    @Override
    public String toString() {
        return "RedisServer[" + uri() + ", dir=" + dir + "]";
    }

    private void launch(boolean samePort) {
        IllegalStateException failure = null;
        for (int attempt = 1; attempt <= LAUNCH_ATTEMPTS; attempt++) {
            int candidate = samePort || port != 0 ? port : ServerProcesses.freePort(HOST);
            try {
                process = spawn(candidate);
                awaitReady(process, candidate);
                port = candidate;
                return;
            } catch (IllegalStateException e) {
                failure = e;
                // Only a lost race for the port is worth another try; any other failure will repeat itself.
                if (!isPortConflict(e)) {
                    break;
                }
                if (samePort || port != 0) {
                    ServerProcesses.pauseBeforeRetry(RETRY_PAUSE_MILLIS, "redis-server"); // a fixed port may still be held briefly by a process that just exited
                }
            }
        }
        throw failure;
    }

    private Process spawn(int candidate) {
        try {
            Path config = dir.resolve(CONFIG_FILE);
            Files.writeString(config, config(candidate), StandardCharsets.UTF_8);
            return new ProcessBuilder(binary.toString(), config.toString())
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(LOG_FILE).toFile()))
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + binary + ": " + e.getMessage(), e);
        }
    }

    private String config(int candidate) {
        List<String> lines = new ArrayList<>();
        lines.add("bind " + HOST);
        lines.add("port " + candidate);
        lines.add("daemonize no");
        lines.add("dir " + quote(dir.toString()));
        lines.add("logfile \"\"");
        lines.add("save \"\"");
        lines.add("appendonly " + (persistence ? "yes" : "no"));
        lines.add("appendfsync everysec");
        return String.join("\n", lines) + "\n";
    }

    private void awaitReady(Process candidate, int candidatePort) {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!candidate.isAlive()) {
                throw new IllegalStateException("redis-server exited with code " + candidate.exitValue()
                        + " on port " + candidatePort + "; log tail:\n" + logTail());
            }
            // Another server on the port would answer too; only our own process id means ours is ready.
            // INFO answers while an AOF is still loading, PING does not: ready means both.
            if (RespProbe.serverPid(HOST, candidatePort, PING_TIMEOUT).orElse(-1) == candidate.pid()
                    && RespProbe.ping(HOST, candidatePort, PING_TIMEOUT)) {
                return;
            }
            ServerProcesses.waitQuietly(candidate, POLL_MILLIS, "redis-server");
        }
        candidate.destroyForcibly();
        ServerProcesses.awaitExit(candidate, EXIT_TIMEOUT);
        throw new IllegalStateException("redis-server did not answer on port " + candidatePort + " within "
                + READY_TIMEOUT.toSeconds() + " s; log tail:\n" + logTail());
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve(LOG_FILE), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
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

    /** Redis 6 logs "Address already in use", Redis 7 "bind: Address in use". */
    private static boolean isPortConflict(IllegalStateException e) {
        return e.getMessage() != null && e.getMessage().contains("in use");
    }

    private static String quote(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
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
        private boolean persistence;
        private Path binary;

        private Builder() {}

        /** The port to listen on; {@code 0} (the default) picks a free loopback port. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /** Whether to keep data across {@link RedisServer#restart()} (AOF, fsync every second). Default off. */
        public Builder persistence(boolean persistence) {
            this.persistence = persistence;
            return this;
        }

        /** A specific {@code redis-server} executable; default {@link RedisServer#binary()}. */
        public Builder binary(Path binary) {
            this.binary = binary;
            return this;
        }

        /** Launches the server and waits until it answers PING (and is the process we started). */
        public RedisServer start() {
            Path executable = binary != null ? binary : RedisServer.binary();
            Path dir;
            try {
                dir = Files.createTempDirectory("baton-redis-");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a temporary directory for redis-server", e);
            }
            RedisServer server = new RedisServer(executable, port, persistence, dir);
            LIVE.add(server);
            try {
                synchronized (server) {
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

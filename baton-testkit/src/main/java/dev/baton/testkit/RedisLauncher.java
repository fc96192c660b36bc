package dev.baton.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts one {@code redis-server} process for a {@link RedisServer}: writes its configuration into the server's
 * directory, spawns the binary with its output appended to the log there, and waits until the process it started
 * (not some other server on the port) answers. It decides nothing about restarts, data or faults: the
 * {@link RedisServer} says when to launch, on which port and with or without an AOF.
 */
final class RedisLauncher {

    /** The only address the servers bind. */
    static final String HOST = "127.0.0.1";

    private static final String LOG_FILE = "redis.log";
    private static final String CONFIG_FILE = "redis.conf";
    private static final int LAUNCH_ATTEMPTS = 5;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration PING_TIMEOUT = Duration.ofMillis(250);
    private static final long POLL_MILLIS = 20;
    private static final long RETRY_PAUSE_MILLIS = 200;
    private static final int LOG_TAIL_LINES = 30;

    /** A server process that answers, and the port it answers on. */
    record Launched(Process process, int port) {
    }

    private final Path binary;
    private final Path dir;
    /** The clock the server reads, or null for the machine's. */
    private final StoreClock clock;

    RedisLauncher(Path binary, Path dir, StoreClock clock) {
        this.binary = binary;
        this.dir = dir;
        this.clock = clock;
    }

    /**
     * Starts the server on {@code port} (0: a free loopback port) with or without an AOF and waits until it answers
     * PING. Retries only a lost race for the port; a fixed port is retried after a short pause, since a process that
     * just exited may still hold it briefly.
     *
     * @throws IllegalStateException if it did not start, with the log's tail
     */
    Launched launch(int port, boolean aof) {
        IllegalStateException failure = null;
        for (int attempt = 1; attempt <= LAUNCH_ATTEMPTS; attempt++) {
            int candidate = port != 0 ? port : ServerProcesses.freePort(HOST);
            try {
                Process process = spawn(candidate, aof);
                awaitReady(process, candidate);
                return new Launched(process, candidate);
            } catch (IllegalStateException e) {
                failure = e;
                // Only a lost race for the port is worth another try; any other failure will repeat itself.
                if (!isPortConflict(e)) {
                    break;
                }
                if (port != 0) {
                    ServerProcesses.pauseBeforeRetry(RETRY_PAUSE_MILLIS, "redis-server");
                }
            }
        }
        throw failure;
    }

    /** The last lines the server processes wrote, for error messages. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve(LOG_FILE), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private Process spawn(int candidate, boolean aof) {
        try {
            Path config = dir.resolve(CONFIG_FILE);
            Files.writeString(config, config(candidate, aof), StandardCharsets.UTF_8);
            ProcessBuilder server = new ProcessBuilder(binary.toString(), config.toString())
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(LOG_FILE).toFile()));
            if (clock != null) {
                clock.applyTo(server.environment());
            }
            return server.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + binary + ": " + e.getMessage(), e);
        }
    }

    private String config(int candidate, boolean aof) {
        List<String> lines = new ArrayList<>();
        lines.add("bind " + HOST);
        lines.add("port " + candidate);
        lines.add("daemonize no");
        lines.add("dir " + quote(dir.toString()));
        lines.add("logfile \"\"");
        // No save points: snapshots are taken only by RedisServer.snapshot(), so a test decides what an older state
        // holds.
        lines.add("save \"\"");
        lines.add("dbfilename dump.rdb");
        lines.add("appendonly " + (aof ? "yes" : "no"));
        lines.add("appendfsync everysec");
        // A rewrite would move writes to a new incremental file and invalidate an AofMark.
        lines.add("auto-aof-rewrite-percentage 0");
        lines.add("aof-load-truncated yes");
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

    /** Redis 6 logs "Address already in use", Redis 7 "bind: Address in use". */
    private static boolean isPortConflict(IllegalStateException e) {
        return e.getMessage() != null && e.getMessage().contains("in use");
    }

    private static String quote(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}

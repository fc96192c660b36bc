package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * One {@code redis-server} process of a replicated topology (a data node or a Sentinel), in a directory of its own:
 * {@code redis.conf}, {@code redis.log} and whatever the server writes there. The configuration is written once, at
 * the first start, for the port picked then; later restarts reuse the file as the server left it, because Sentinels
 * and {@code CONFIG REWRITE} record their view of the topology in it (a restarted Sentinel remembers the current
 * primary, a restarted old primary comes back as it was when it died). Thread-safe.
 */
final class RedisNodeProcess {

    static final String HOST = RedisLauncher.HOST;

    private static final String CONFIG_FILE = "redis.conf";
    private static final String LOG_FILE = "redis.log";
    private static final int LAUNCH_ATTEMPTS = 5;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(250);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);
    private static final long POLL_MILLIS = 20;
    private static final long RETRY_PAUSE_MILLIS = 200;
    private static final int LOG_TAIL_LINES = 30;

    private final String name;
    private final Path binary;
    private final Path dir;
    private final List<String> modeArguments;
    private int port;
    private final SignalledProcess process;

    /**
     * @param name          how messages call it, e.g. "replica 2" or "sentinel 1"
     * @param modeArguments arguments after the config file, e.g. {@code --sentinel}
     */
    RedisNodeProcess(String name, Path binary, Path dir, List<String> modeArguments) {
        this.name = name;
        this.binary = binary;
        this.dir = dir;
        this.modeArguments = List.copyOf(modeArguments);
        this.process = new SignalledProcess(name);
    }

    /**
     * The lines every topology node starts with: loopback only, this port and directory, log to stdout (the log
     * file), no persistence, and full syncs straight over the socket without the 5 s wait Redis 7 makes by default.
     */
    static List<String> baseConfig(int port, Path dir) {
        List<String> lines = new ArrayList<>();
        lines.add("bind " + HOST);
        lines.add("port " + port);
        lines.add("daemonize no");
        lines.add("dir " + quote(dir.toString()));
        lines.add("logfile \"\"");
        lines.add("save \"\"");
        lines.add("appendonly no");
        lines.add("repl-diskless-sync yes");
        lines.add("repl-diskless-sync-delay 0");
        return lines;
    }

    /**
     * First start: picks a free loopback port, writes {@code config.apply(port)} as {@code redis.conf} and waits
     * until the process answers. A lost race for the port is retried on another one.
     */
    synchronized void start(IntFunction<List<String>> config) {
        IllegalStateException failure = null;
        for (int attempt = 1; attempt <= LAUNCH_ATTEMPTS; attempt++) {
            int candidate = ServerProcesses.freePort(HOST);
            try {
                Files.writeString(dir.resolve(CONFIG_FILE), String.join("\n", config.apply(candidate)) + "\n",
                        StandardCharsets.UTF_8);
                launch(candidate);
                return;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the configuration of " + name, e);
            } catch (IllegalStateException e) {
                failure = e;
                if (!isPortConflict(e)) {
                    break;
                }
            }
        }
        throw failure;
    }

    /** Starts the process again on the same port with the configuration as the server left it; stops it first. */
    synchronized void restart() {
        stop();
        IllegalStateException failure = null;
        for (int attempt = 1; attempt <= LAUNCH_ATTEMPTS; attempt++) {
            try {
                launch(port);
                return;
            } catch (IllegalStateException e) {
                failure = e;
                if (!isPortConflict(e)) {
                    break;
                }
                // A process that just exited may hold the port for a moment.
                ServerProcesses.pauseBeforeRetry(RETRY_PAUSE_MILLIS, name);
            }
        }
        throw failure;
    }

    /** SIGTERM, and SIGKILL if it has not exited within 10 s. No-op if not running. */
    void stop() {
        process.stop();
    }

    /** SIGKILL, as a crash, and waits until the process is gone. No-op if not running. */
    void kill() {
        process.kill();
    }

    /** SIGSTOP: the process keeps its socket but answers nothing until {@link #resume()}. */
    void pause() {
        process.pause();
    }

    /** SIGCONT after {@link #pause()}; no-op otherwise. */
    void resume() {
        process.resume();
    }

    boolean isRunning() {
        return process.isRunning();
    }

    /** True between {@link #pause()} and {@link #resume()}, while the process runs. */
    boolean isPaused() {
        return process.isPaused();
    }

    synchronized int port() {
        return port;
    }

    InetSocketAddress address() {
        return new InetSocketAddress(HOST, port());
    }

    String name() {
        return name;
    }

    /**
     * Runs a command on this node; a reply as {@link RespClient} returns it. A failed connection becomes an
     * {@link IllegalStateException} naming the node; an error reply a {@link RespClient.RedisErrorReply}.
     */
    Object call(String... args) {
        try {
            return RespClient.call(address(), COMMAND_TIMEOUT, args);
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", args) + " on " + name + " (" + HOST + ":" + port()
                    + ") failed: " + e.getMessage(), e);
        }
    }

    /** {@code INFO section} as field name to value. */
    Map<String, String> info(String section) {
        Map<String, String> fields = new HashMap<>();
        Object reply = call("INFO", section);
        for (String line : String.valueOf(reply).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    /** The last lines the process wrote, for error messages. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve(LOG_FILE), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public String toString() {
        return name + " " + HOST + ":" + port();
    }

    private void launch(int candidate) {
        List<String> command = new ArrayList<>(List.of(binary.toString(), dir.resolve(CONFIG_FILE).toString()));
        command.addAll(modeArguments);
        // The config file names the port of the first start; the command line keeps a restart on the same one.
        command.addAll(List.of("--port", Integer.toString(candidate)));
        Process started;
        try {
            started = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(LOG_FILE).toFile()))
                    .start();
            started.getOutputStream().close();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + name + " with " + binary + ": " + e.getMessage(), e);
        }
        awaitReady(started, candidate);
        process.started(started);
        port = candidate;
    }

    private void awaitReady(Process candidate, int candidatePort) {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!candidate.isAlive()) {
                throw new IllegalStateException(name + " exited with code " + candidate.exitValue() + " on port "
                        + candidatePort + "; log tail:\n" + logTail());
            }
            // Only our own process id means ours answers, not another server that holds the port.
            if (RespProbe.serverPid(HOST, candidatePort, PROBE_TIMEOUT).orElse(-1) == candidate.pid()
                    && RespProbe.ping(HOST, candidatePort, PROBE_TIMEOUT)) {
                return;
            }
            ServerProcesses.waitQuietly(candidate, POLL_MILLIS, name);
        }
        candidate.destroyForcibly();
        ServerProcesses.awaitExit(candidate, EXIT_TIMEOUT);
        throw new IllegalStateException(name + " did not answer on port " + candidatePort + " within "
                + READY_TIMEOUT.toSeconds() + " s; log tail:\n" + logTail());
    }

    /** A string in redis.conf: double quotes, with backslashes and quotes escaped. */
    static String quote(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** Redis 6 logs "Address already in use", Redis 7 "bind: Address in use". */
    private static boolean isPortConflict(IllegalStateException e) {
        return e.getMessage() != null && e.getMessage().contains("in use");
    }
}

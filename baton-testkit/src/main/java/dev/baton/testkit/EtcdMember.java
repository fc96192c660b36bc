package dev.baton.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@code etcd} process of an {@link EtcdCluster}, in a directory of its own ({@code data/} and {@code etcd.log}),
 * with its client and peer ports on loopback. Its command line is fixed when the cluster is planned, so a restart
 * runs the same member again: with its data directory in place, etcd ignores {@code --initial-cluster-state} and
 * rejoins with the identity it has on disk. Thread-safe.
 */
final class EtcdMember {

    static final String HOST = "127.0.0.1";

    private static final String LOG_FILE = "etcd.log";
    private static final int LOG_TAIL_LINES = 30;
    /** Raft timing (etcd's defaults): a leader is replaced about a second after it stops sending heartbeats. */
    private static final String HEARTBEAT_MILLIS = "100";
    private static final String ELECTION_MILLIS = "1000";

    private final String name;
    private final Path binary;
    private final Path dir;
    private final int clientPort;
    private final int peerPort;
    private List<String> command;
    private final SignalledProcess process;

    EtcdMember(String name, Path binary, Path dir, int clientPort, int peerPort) {
        this.name = name;
        this.binary = binary;
        this.dir = dir;
        this.clientPort = clientPort;
        this.peerPort = peerPort;
        this.process = new SignalledProcess("etcd member " + name);
    }

    /** {@code NAME=http://127.0.0.1:PEER_PORT}, this member's entry in {@code --initial-cluster}. */
    String initialClusterEntry() {
        return name + "=" + peerUrl();
    }

    /** Fixes the command line for a cluster of {@code initialCluster} with {@code token}, and starts. */
    synchronized void start(String initialCluster, String token) {
        command = new ArrayList<>(List.of(binary.toString(),
                "--name", name,
                "--data-dir", dir.resolve("data").toString(),
                "--listen-client-urls", clientUrl(),
                "--advertise-client-urls", clientUrl(),
                "--listen-peer-urls", peerUrl(),
                "--initial-advertise-peer-urls", peerUrl(),
                "--initial-cluster", initialCluster,
                "--initial-cluster-state", "new",
                "--initial-cluster-token", token,
                "--heartbeat-interval", HEARTBEAT_MILLIS,
                "--election-timeout", ELECTION_MILLIS,
                "--enable-v2=false",
                "--logger", "zap",
                "--log-level", "warn"));
        spawn();
    }

    /** Starts the same member again (stopping it first if it runs), with the data it has. */
    synchronized void restart() {
        if (command == null) {
            throw new IllegalStateException("etcd member " + name + " was never started");
        }
        stop();
        spawn();
    }

    /** SIGTERM, and SIGKILL if it has not exited within 10 s. No-op if not running. */
    void stop() {
        process.stop();
    }

    /** SIGKILL, as a crash. No-op if not running. */
    void kill() {
        process.kill();
    }

    /** SIGSTOP: the member keeps its sockets but neither answers clients nor sends heartbeats. */
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

    /** Running and not paused: able to answer. */
    boolean isAnswering() {
        return isRunning() && !process.isPaused();
    }

    /** Fails with the log's tail if the process has exited (e.g. its port was taken). */
    void requireAlive() {
        process.requireAlive(() -> "log tail:\n" + logTail());
    }

    String name() {
        return name;
    }

    int clientPort() {
        return clientPort;
    }

    String clientUrl() {
        return "http://" + HOST + ":" + clientPort;
    }

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
        return "etcd " + name + " " + clientUrl();
    }

    private String peerUrl() {
        return "http://" + HOST + ":" + peerPort;
    }

    private void spawn() {
        try {
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(LOG_FILE).toFile()));
            // ETCD_* variables would override the flags or add unknown ones.
            builder.environment().keySet().removeIf(variable -> variable.startsWith("ETCD"));
            Process started = builder.start();
            started.getOutputStream().close();
            process.started(started);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start etcd member " + name + " with " + binary + ": "
                    + e.getMessage(), e);
        }
    }
}

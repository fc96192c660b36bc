package dev.baton.bench.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * One {@code baton node} process of the shipped jar under the soak's memory limits ({@code -Xmx256m
 * -XX:MaxDirectMemorySize=64m}), always {@code --profile fast --http 127.0.0.1:PORT}. Its JSON lines are read as they
 * come (so the leadership events are timed by this harness) and copied to {@code NAME.log}; its stderr goes to
 * {@code NAME.err.log}, so a full pipe can never stall it.
 */
final class SoakNode {

    /** The JVM limits every soak node runs with: a small container's. */
    static final List<String> JVM_LIMITS = List.of("-Xmx256m", "-XX:MaxDirectMemorySize=64m");

    /** One leadership line of the node: {@code leadership-acquired} or {@code leadership-lost}, when it was read. */
    record LeadershipEvent(long atNanos, String node, String kind, long term, String reason) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String name;
    private final String cluster;
    private final int httpPort;
    private final int peerPort;
    private final Process process;
    private final List<LeadershipEvent> events = new ArrayList<>();
    private volatile long errorLines;

    private SoakNode(String name, String cluster, int httpPort, int peerPort, Process process, Path log) {
        this.name = name;
        this.cluster = cluster;
        this.httpPort = httpPort;
        this.peerPort = peerPort;
        this.process = process;
        Thread reader = new Thread(() -> read(log), "soak-node-reader-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code java -Xmx256m -XX:MaxDirectMemorySize=64m -jar jar node ARGS --profile fast --http
     * 127.0.0.1:httpPort}, logging to {@code logDir}; {@code peerPort} is its {@code --listen} port on {@code peer}
     * (0 on a store backend).
     */
    static SoakNode start(Path jar, String name, String cluster, List<String> nodeArgs, int httpPort, Path logDir,
            int peerPort) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(JVM_LIMITS);
        command.addAll(List.of("-jar", jar.toString(), "node"));
        command.addAll(nodeArgs);
        command.addAll(List.of("--profile", "fast", "--http", "127.0.0.1:" + httpPort));
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(logDir.resolve(name + ".err.log").toFile()))
                .start();
        return new SoakNode(name, cluster, httpPort, peerPort, process, logDir.resolve(name + ".log"));
    }

    private void read(Path log) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
                BufferedWriter copy = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                long at = System.nanoTime();
                copy.write(line);
                copy.newLine();
                copy.flush();
                note(at, line);
            }
        } catch (IOException e) {
            // The process ended: its pipe closed.
        }
    }

    private void note(long at, String line) {
        JsonNode event;
        try {
            event = JSON.readTree(line);
        } catch (IOException e) {
            return; // not a JSON line: the node prints only JSON on stdout, so this is noise worth ignoring
        }
        String kind = event.path("event").asText("");
        switch (kind) {
            case "leadership-acquired", "leadership-lost" -> {
                synchronized (events) {
                    events.add(new LeadershipEvent(at, name, kind, event.path("term").asLong(0),
                            event.path("reason").asText("")));
                }
            }
            case "error" -> errorLines++;
            default -> {
                // other events are in the log file
            }
        }
    }

    String name() {
        return name;
    }

    /** {@code redis} or {@code peer}: the cluster this node belongs to. */
    String cluster() {
        return cluster;
    }

    int httpPort() {
        return httpPort;
    }

    /** The {@code --listen} port of a {@code peer} node; 0 on a store backend. */
    int peerPort() {
        return peerPort;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The leadership lines read so far. */
    List<LeadershipEvent> leadershipEvents() {
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    /** {@code error} JSON lines so far (store or transport trouble the node reported and retried). */
    long errorLines() {
        return errorLines;
    }

    /** The process's resident set from {@code /proc/PID/status} (VmRSS), in bytes; empty once it is gone. */
    OptionalLong rssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    String[] parts = line.substring(6).trim().split("\\s+");
                    return OptionalLong.of(Long.parseLong(parts[0]) * 1024);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // gone, or not Linux
        }
        return OptionalLong.empty();
    }

    /** SIGTERM without waiting, so that several nodes shut down in parallel before {@link #stop} waits. */
    void signalStop() {
        process.destroy();
    }

    /** SIGTERM (a leader releases its lease), SIGKILL if the node takes longer than {@code graceSeconds}. */
    void stop(long graceSeconds) {
        process.destroy();
        try {
            if (!process.waitFor(graceSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** SIGKILL without waiting: for the Ctrl-C hook, which must not linger. */
    void kill() {
        process.destroyForcibly();
    }
}

package dev.baton.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One {@code baton node} child process of the demo. A reader thread parses its stdout and hands every JSON line, with
 * the monotonic time it arrived, to the demo's queue; when the output ends it hands over a {@code process-exited}
 * line, so the demo notices a node that died instead of waiting for it. The node's logs (stderr) go to a file.
 */
final class DemoNode implements AutoCloseable {

    /** The event name of the line a node's reader posts when the node's stdout closed. */
    static final String EXITED = "process-exited";

    /** A line a node printed, and when the demo received it ({@link System#nanoTime()}). */
    record Line(DemoNode from, JsonNode json, long receivedNanos) {

        String event() {
            return json.path("event").asText();
        }
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration EXIT_WAIT = Duration.ofSeconds(10);

    private final String name;
    private final String id;
    private final Process process;

    private DemoNode(String name, String id, Process process) {
        this.name = name;
        this.id = id;
        this.process = process;
    }

    /**
     * Starts {@code baton node <args>} in a child JVM; its lines go to {@code sink}, its logs to {@code log}.
     *
     * @param name the name the demo calls the node by
     * @param id   the node id the node prints in its lines (on peer, its listen address)
     */
    static DemoNode start(String name, String id, List<String> nodeArgs, Path log, BlockingQueue<Line> sink) {
        List<String> args = new ArrayList<>();
        args.add("node");
        args.addAll(nodeArgs);
        Process process;
        try {
            process = new ProcessBuilder(ChildJvm.batonCommand(args))
                    .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start node " + name, e);
        }
        DemoNode node = new DemoNode(name, id, process);
        Thread reader = new Thread(() -> node.readLines(sink), "demo-reader-" + name);
        reader.setDaemon(true);
        reader.start();
        return node;
    }

    private void readLines(BlockingQueue<Line> sink) {
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String text;
            while ((text = out.readLine()) != null) {
                long received = System.nanoTime();
                try {
                    sink.add(new Line(this, MAPPER.readTree(text), received));
                } catch (IOException notJson) {
                    // stdout carries JSON only; anything else is a bug in the node, not something to act on
                }
            }
        } catch (IOException e) {
            // the stream broke because the process died: reported below like any other exit
        }
        ObjectNode exited = JsonNodeFactory.instance.objectNode();
        exited.put("event", EXITED);
        exited.put("node", name);
        sink.add(new Line(this, exited, System.nanoTime()));
    }

    String name() {
        return name;
    }

    /** The node id in its JSON lines (its peer address). */
    String id() {
        return id;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: the node gets no chance to hand its leadership over, as in a crash. */
    void kill() {
        process.destroyForcibly();
    }

    /** SIGTERM: the node hands its leadership over (if it leads), leaves the cluster and exits 0. */
    void terminate() {
        process.destroy();
    }

    /** Waits for the process to end and returns its exit code, or -1 if it is still running after {@code timeout}. */
    int awaitExit(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Stops the node gracefully, or by force if it does not exit in time. Idempotent. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        terminate();
        if (awaitExit(EXIT_WAIT) < 0) {
            kill();
            awaitExit(EXIT_WAIT);
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}

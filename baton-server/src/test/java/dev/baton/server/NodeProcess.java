package dev.baton.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * A {@code baton} child process for tests, started exactly as an operator would start it but from the test class
 * path. Its stdout is parsed into JSON lines as they arrive (anything that is not JSON is kept apart, because stdout
 * must carry JSON only); its stderr is kept as text. Signals go through {@code kill}, so a test can crash (SIGKILL),
 * stop (SIGTERM), freeze (SIGSTOP) and thaw (SIGCONT) a node. {@link #close()} always leaves the process dead.
 */
final class NodeProcess implements AutoCloseable {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration EXIT_WAIT = Duration.ofSeconds(10);

    private final String name;
    private final Process process;
    private final List<JsonNode> lines = new CopyOnWriteArrayList<>();
    private final List<String> notJson = new CopyOnWriteArrayList<>();
    private final List<String> stderr = new CopyOnWriteArrayList<>();
    private final List<Thread> readers = new ArrayList<>();

    private NodeProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        readers.add(reader(process.getInputStream(), this::onStdout, "stdout"));
        readers.add(reader(process.getErrorStream(), stderr::add, "stderr"));
    }

    /** Starts {@code baton node <args>} with {@code --node-id name}. */
    static NodeProcess node(String name, String... args) {
        List<String> all = new ArrayList<>(List.of("node", "--node-id", name));
        all.addAll(List.of(args));
        return run(name, all);
    }

    /** Starts {@code baton <args>}. */
    static NodeProcess run(String name, List<String> args) {
        try {
            return new NodeProcess(name, new ProcessBuilder(ChildJvm.batonCommand(args)).start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    private Thread reader(InputStream stream, Consumer<String> sink, String what) {
        Thread thread = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    sink.accept(line);
                }
            } catch (IOException e) {
                // the process is gone
            }
        }, "test-" + name + "-" + what);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private void onStdout(String line) {
        try {
            JsonNode json = MAPPER.readTree(line);
            if (json != null && json.isObject()) {
                lines.add(json);
                return;
            }
        } catch (IOException e) {
            // kept below
        }
        notJson.add(line);
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Every JSON line so far, in the order printed. */
    List<JsonNode> lines() {
        return List.copyOf(lines);
    }

    /** The JSON lines of one event type, in order. */
    List<JsonNode> events(String event) {
        return lines.stream().filter(line -> event.equals(line.path("event").asText())).toList();
    }

    /** The last line of {@code event}, if any. */
    Optional<JsonNode> last(String event) {
        List<JsonNode> found = events(event);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(found.size() - 1));
    }

    /** Whether this node's latest leadership line says it leads. */
    boolean believesItLeads() {
        for (int i = lines.size() - 1; i >= 0; i--) {
            String event = lines.get(i).path("event").asText();
            if (event.equals("leadership-acquired")) {
                return true;
            }
            if (event.equals("leadership-lost")) {
                return false;
            }
        }
        return false;
    }

    /** The term of the latest {@code leadership-acquired}, or -1. */
    long lastAcquiredTerm() {
        return last("leadership-acquired").map(line -> line.path("term").asLong()).orElse(-1L);
    }

    /** Stdout lines that were not JSON objects: there must be none. */
    List<String> notJson() {
        return List.copyOf(notJson);
    }

    /** Everything on stderr so far. */
    String stderr() {
        return String.join("\n", stderr);
    }

    /** Writes {@code line} and a newline to the process's stdin (the commands of {@code --chaos-hooks}). */
    void send(String line) {
        try {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to the stdin of " + name, e);
        }
    }

    void sigterm() {
        signal("TERM");
    }

    /** SIGKILL, and waits until the process is gone: a test that goes on at once must not still see it alive. */
    void sigkill() {
        signal("KILL");
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new AssertionError(name + " still runs 10 s after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void sigstop() {
        signal("STOP");
    }

    void sigcont() {
        signal("CONT");
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits for the process to exit and for its output to be read; returns the exit code. */
    int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(name + " did not exit within " + timeout + "\n" + describe());
            }
            for (Thread reader : readers) {
                reader.join(TimeUnit.SECONDS.toMillis(5));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return process.exitValue();
    }

    /** Name, pid and the tail of both outputs, for assertion messages. */
    String describe() {
        List<JsonNode> all = lines();
        String out = all.subList(Math.max(0, all.size() - 15), all.size()).stream()
                .map(JsonNode::toString).collect(Collectors.joining("\n  "));
        String err = stderr.subList(Math.max(0, stderr.size() - 15), stderr.size()).stream()
                .collect(Collectors.joining("\n  "));
        return name + " (pid " + process.pid() + (process.isAlive() ? ", alive" : ", exited") + ")\n stdout:\n  "
                + out + "\n stderr:\n  " + err;
    }

    /** Kills the process if it still runs (thawing it first if frozen) and waits until it is gone. */
    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                signal("CONT");
            } catch (RuntimeException alreadyGone) {
                // fine: it exited meanwhile
            }
            process.destroyForcibly();
        }
        try {
            process.waitFor(EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code ts} of a line as an instant. */
    static Instant ts(JsonNode line) {
        return Instant.parse(line.path("ts").asText());
    }

    @Override
    public String toString() {
        return name;
    }
}

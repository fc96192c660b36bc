package dev.baton.server.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.server.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One {@code baton node} child process of a chaos run, started with {@code --chaos-hooks}: its JSON lines become
 * history events (leadership acquired and lost, the deadlines of its leaderships, fenced writes) as they arrive, its
 * stdin takes fault commands ({@code partition …}, {@code heal}), and the harness can kill, freeze and thaw it and
 * start it again with the same arguments, which is how a crashed process comes back.
 *
 * <p>A node keeps its name ({@code n1}, {@code n2}, …) and its node id across restarts; each start is a new
 * incarnation with a new process. Its logs (stderr) go to a file per node in the run's directory, appended across
 * incarnations.
 */
final class ChaosNode implements AutoCloseable {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration EXIT_WAIT = Duration.ofSeconds(10);

    private final String subcommand;
    private final String name;
    private final String id;
    private final List<String> args;
    private final Path log;
    private final Recorder recorder;
    private Process process;
    private Thread reader;
    private OutputStream stdin;
    private boolean paused;

    /** Where a node's events go, tagged with the node's name. */
    interface Recorder {
        void line(ChaosNode node, JsonNode json);
    }

    ChaosNode(String name, String id, List<String> args, Path log, Recorder recorder) {
        this("node", name, id, args, log, recorder);
    }

    /**
     * A child of {@code baton SUBCOMMAND} instead of {@code baton node}: the simulated workers ({@code worker}) run as
     * processes of their own too, so that killing the run kills them, and their lines reach the history the same way.
     */
    ChaosNode(String subcommand, String name, String id, List<String> args, Path log, Recorder recorder) {
        this.subcommand = subcommand;
        this.name = name;
        this.id = id;
        this.args = List.copyOf(args);
        this.log = log;
        this.recorder = recorder;
    }

    /** The harness's name for the node: {@code n1} … */
    String name() {
        return name;
    }

    /** The node id the node uses in the election (on peer and bully, its listen address). */
    String id() {
        return id;
    }

    /** Starts a new incarnation of the node. */
    synchronized void start() {
        List<String> command = new ArrayList<>();
        command.add(subcommand);
        command.addAll(args);
        Process started;
        try {
            started = new ProcessBuilder(ChildJvm.batonCommand(command))
                    .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start node " + name, e);
        }
        process = started;
        stdin = started.getOutputStream();
        paused = false;
        reader = new Thread(() -> read(started), "chaos-reader-" + name + "-" + started.pid());
        reader.setDaemon(true);
        reader.start();
    }

    private void read(Process from) {
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(from.getInputStream(), StandardCharsets.UTF_8))) {
            String text;
            while ((text = out.readLine()) != null) {
                JsonNode json;
                try {
                    json = MAPPER.readTree(text);
                } catch (IOException notJson) {
                    continue; // stdout carries JSON only; anything else is a bug in the node, not an event
                }
                recorder.line(this, json);
            }
        } catch (IOException e) {
            // the stream broke because the process died; the harness knows why
        }
    }

    synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    synchronized boolean isPaused() {
        return paused;
    }

    /** Writes one fault command to the node's stdin; a node that is gone ignores it. */
    synchronized void command(String line) {
        if (!isAlive()) {
            return;
        }
        try {
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            // the node died meanwhile: nothing to tell it
        }
    }

    /** SIGKILL, and waits until the process is gone: a crash, with no chance to hand over. */
    synchronized void kill() {
        if (process == null) {
            return;
        }
        signalUnlessGone("KILL");
        awaitExit(process);
        awaitLines();
        paused = false;
    }

    /** SIGSTOP: the process freezes, every thread at once, as in a long GC pause or a stopped VM. */
    synchronized void pause() {
        if (isAlive() && !paused) {
            signal("STOP");
            paused = true;
        }
    }

    /**
     * The node stopped itself (SIGSTOP of its own process, a hook's fault), as it said on its stdout: from now on it
     * counts as frozen, and {@link #resume()} lets it go on.
     */
    synchronized void stoppedItself() {
        if (isAlive()) {
            paused = true;
        }
    }

    /** SIGCONT after {@link #pause()}. */
    synchronized void resume() {
        if (paused && isAlive()) {
            signal("CONT");
        }
        paused = false;
    }

    /** Stops the node gracefully (SIGTERM: it hands over), or by force if it does not exit in time. */
    @Override
    public synchronized void close() {
        if (process == null || !process.isAlive()) {
            return;
        }
        resume();
        signalUnlessGone("TERM");
        if (!awaitExit(process)) {
            signalUnlessGone("KILL");
            awaitExit(process);
        }
        awaitLines();
    }

    /**
     * Sends {@code signal} with {@code kill}, not {@link Process#destroy()}: destroy also closes this side of the
     * process's stdout, and the lines a node prints as it stops (a leader's {@code leadership-lost} when it hands
     * over) would never reach the history.
     */
    private void signalUnlessGone(String signal) {
        try {
            signal(signal);
        } catch (IllegalStateException e) {
            if (process.isAlive()) {
                throw e;
            }
        }
    }

    /**
     * Once the process is gone, waits until its last lines are in the history, so that nothing the node printed is
     * missing when the history is checked.
     */
    private void awaitLines() {
        try {
            reader.join(EXIT_WAIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            if (!kill.waitFor(EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean awaitExit(Process process) {
        try {
            return process.waitFor(EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public String toString() {
        return name;
    }
}

package dev.baton.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An example's {@code main} running in a child JVM (this JVM's {@code java}, this test's class path), with every line
 * it prints kept for assertions and its stderr in a file for the failure message.
 */
final class ExampleProcess implements AutoCloseable {

    private static final Pattern NODE = Pattern.compile("^node (\\S+) joining ");

    private final Process process;
    private final Path stderr;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private ExampleProcess(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(this::readLines, "example-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code mainClass} with {@code args}; its stderr goes to a file under {@code dir}. */
    static ExampleProcess start(Class<?> mainClass, Path dir, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        // Small, short-lived children sharing two cores: the serial collector and the client compiler start faster.
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        Path stderr = Files.createTempFile(dir, "example-", ".stderr");
        Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        return new ExampleProcess(process, stderr);
    }

    private void readLines() {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lines.add(line);
            }
        } catch (IOException e) {
            lines.add("(stdout unreadable: " + e + ")");
        }
    }

    /** Every line printed so far. */
    List<String> lines() {
        return List.copyOf(lines);
    }

    /** The first group of {@code pattern} in the first line it matches, if printed yet. */
    Optional<String> find(Pattern pattern) {
        for (String line : lines) {
            Matcher matcher = pattern.matcher(line);
            if (matcher.find()) {
                return Optional.of(matcher.group(1));
            }
        }
        return Optional.empty();
    }

    /** The first group of {@code pattern} in the last line it matches, if any. */
    Optional<String> findLast(Pattern pattern) {
        List<String> now = lines();
        for (int i = now.size() - 1; i >= 0; i--) {
            Matcher matcher = pattern.matcher(now.get(i));
            if (matcher.find()) {
                return Optional.of(matcher.group(1));
            }
        }
        return Optional.empty();
    }

    /** The node id the example printed at start, if printed yet. */
    Optional<String> nodeId() {
        return find(NODE);
    }

    /**
     * Sends SIGTERM, as {@code kill}, Ctrl-C's cousin or a container stop would. Through the {@link ProcessHandle}:
     * {@link Process#destroy()} sends the same signal but also closes our end of the child's output, and the lines
     * it prints while shutting down are what the tests look at.
     */
    void terminate() {
        process.toHandle().destroy();
    }

    /** Waits for the process to exit and returns its exit code. */
    int awaitExit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("the example did not exit within " + seconds + " s\n" + describe());
        }
        return process.exitValue();
    }

    /** The output and error output so far, for failure messages. */
    String describe() {
        String errors;
        try {
            errors = Files.readString(stderr);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return "stdout:\n  " + String.join("\n  ", lines) + "\nstderr:\n" + errors;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}

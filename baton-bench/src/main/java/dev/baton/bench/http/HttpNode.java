package dev.baton.bench.http;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One {@code baton node --http} process of the shipped jar ({@code baton-server/target/baton.jar}), started exactly
 * as {@code ./baton node} starts it ({@code java -jar}, default JVM options): the HTTP scenarios measure what an
 * operator runs, not a test harness. Its output goes to a log file, so a full pipe can never stall it.
 */
final class HttpNode {

    /** Where the jar is looked for unless {@code -Dbaton.jar=...} says otherwise: relative to the working directory. */
    static final String DEFAULT_JAR = "baton-server/target/baton.jar";

    private final Path jar;
    private final String name;
    private final String backend;
    private final String group;
    private final int port;
    private final Path log;
    private final Process process;

    private HttpNode(Path jar, String name, String backend, String group, int port, Path log, Process process) {
        this.jar = jar;
        this.name = name;
        this.backend = backend;
        this.group = group;
        this.port = port;
        this.log = log;
        this.process = process;
    }

    /** The node jar, if it has been built. */
    static Optional<Path> jar() {
        Path jar = Path.of(System.getProperty("baton.jar", DEFAULT_JAR)).toAbsolutePath();
        return Files.isRegularFile(jar) ? Optional.of(jar) : Optional.empty();
    }

    /**
     * Starts {@code java -jar <jar> node --node-id name --backend backend --group group --profile fast --http
     * 127.0.0.1:port}; output is appended to {@code logDir/name.log}.
     */
    static HttpNode start(Path jar, String name, String backend, String group, int port, Path logDir)
            throws IOException {
        Path log = logDir.resolve(name + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = List.of(java, "-jar", jar.toString(), "node", "--node-id", name, "--backend", backend,
                "--group", group, "--profile", "fast", "--http", "127.0.0.1:" + port);
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        return new HttpNode(jar, name, backend, group, port, log, process);
    }

    /** The same node (id, port, backend) started again after it died. */
    HttpNode restart() throws IOException {
        return start(jar, name, backend, group, port, log.getParent());
    }

    String name() {
        return name;
    }

    int port() {
        return port;
    }

    /** {@code http://127.0.0.1:<port>}. */
    URI url() {
        return URI.create("http://127.0.0.1:" + port);
    }

    Path log() {
        return log;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL, which is what {@link Process#destroyForcibly()} sends on Linux; returns at once. */
    void kill() {
        process.destroyForcibly();
    }

    /** Waits for the process to be gone. */
    boolean awaitExit(long timeoutSeconds) throws InterruptedException {
        return process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    }

    /** SIGTERM (a leader releases its lease and the node exits), SIGKILL if it takes more than 10 s. */
    void stop() throws InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}

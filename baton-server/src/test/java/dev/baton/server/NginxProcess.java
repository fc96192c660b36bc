package dev.baton.server;

import static org.awaitility.Awaitility.await;

import dev.baton.testkit.LoopbackPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * nginx as a child process, running the shipped {@code docs/deploy/nginx.conf} with nothing changed but what a test
 * must change: the three node addresses become the test nodes' ports, the listen address a free loopback port,
 * {@code daemon off;} keeps nginx in the foreground (so it is this process's child and dies with {@link #close()}),
 * and, when the tests run as root, {@code user root;} lets the workers read the temporary prefix directory. Every
 * other path in the file is relative to the prefix ({@code -p}), here a fresh directory; the startup error log goes
 * there too ({@code -e}), so nginx never writes outside it.
 */
final class NginxProcess implements AutoCloseable {

    /** The node addresses as the shipped file names them, in upstream order. */
    static final List<String> SHIPPED_NODES = List.of("127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003");
    private static final Pattern LISTEN = Pattern.compile("listen 127\\.0\\.0\\.1:8000;");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(15);

    private final Process process;
    private final Path prefix;
    private final URI url;

    private NginxProcess(Process process, Path prefix, URI url) {
        this.process = process;
        this.prefix = prefix;
        this.url = url;
    }

    /** The nginx executable: {@code nginx} on PATH, else Debian's {@code /usr/sbin/nginx} (not on a user's PATH). */
    static Optional<Path> executable() {
        Stream<Path> onPath = Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .filter(dir -> !dir.isBlank())
                .map(dir -> Path.of(dir, "nginx"));
        return Stream.concat(onPath, Stream.of(Path.of("/usr/sbin/nginx")))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** {@code docs/deploy/nginx.conf}, found from the module directory the tests run in. */
    static Path shippedConfig() {
        Path dir = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
        for (Path at = dir; at != null; at = at.getParent()) {
            Path candidate = at.resolve("docs/deploy/nginx.conf");
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("docs/deploy/nginx.conf not found above " + dir);
    }

    /**
     * The shipped configuration for these node ports and this listen port.
     *
     * @throws IllegalStateException if the shipped file no longer names the addresses this substitutes, so a change
     *                               to its layout fails the test instead of silently testing something else
     */
    static String configFor(String shipped, List<Integer> nodePorts, int listenPort, boolean asRoot) {
        if (nodePorts.size() != SHIPPED_NODES.size()) {
            throw new IllegalArgumentException("the shipped file has " + SHIPPED_NODES.size() + " nodes");
        }
        String config = shipped;
        for (int i = 0; i < SHIPPED_NODES.size(); i++) {
            String address = SHIPPED_NODES.get(i);
            int uses = countOf(config, "server " + address + " ");
            if (uses != 2) {
                throw new IllegalStateException("expected " + address + " in both upstreams, found it " + uses
                        + " times");
            }
            config = config.replace("server " + address + " ", "server 127.0.0.1:" + nodePorts.get(i) + " ");
        }
        Matcher listen = LISTEN.matcher(config);
        if (!listen.find()) {
            throw new IllegalStateException("no 'listen 127.0.0.1:8000;' in the shipped file");
        }
        config = listen.replaceFirst("listen 127.0.0.1:" + listenPort + ";");
        String header = "daemon off;\n" + (asRoot ? "user root;\n" : "");
        return header + config;
    }

    private static int countOf(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }

    /** Starts nginx with the shipped configuration in front of {@code nodePorts}; waits until it accepts. */
    static NginxProcess start(Path nginx, List<Integer> nodePorts, Path prefix) {
        try {
            Files.createDirectories(prefix.resolve("logs"));
            int port = freeLoopbackPort();
            String shipped = Files.readString(shippedConfig(), StandardCharsets.UTF_8);
            boolean root = "root".equals(System.getProperty("user.name"));
            Path conf = prefix.resolve("nginx.conf");
            Files.writeString(conf, configFor(shipped, nodePorts, port, root), StandardCharsets.UTF_8);
            Process process = new ProcessBuilder(nginx.toString(), "-p", prefix + "/",
                    "-e", prefix.resolve("logs/error.log").toString(), "-c", conf.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(prefix.resolve("logs/stdout.log").toFile())
                    .start();
            NginxProcess started = new NginxProcess(process, prefix, URI.create("http://127.0.0.1:" + port));
            try {
                await().atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(50))
                        .failFast("nginx exited", () -> !process.isAlive())
                        .until(() -> accepts(port));
            } catch (RuntimeException | AssertionError e) {
                String logs = started.logs();
                started.close();
                throw new AssertionError("nginx did not start:\n" + logs, e);
            }
            return started;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A loopback port that was free a moment ago, below the range outgoing connections take theirs from. */
    static int freeLoopbackPort() {
        return LoopbackPorts.free(1).get(0);
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** {@code http://127.0.0.1:<port>}, no trailing slash. */
    URI url() {
        return url;
    }

    /** nginx's output and error log, for assertion messages. */
    String logs() {
        StringBuilder out = new StringBuilder();
        for (String name : List.of("logs/stdout.log", "logs/error.log")) {
            Path file = prefix.resolve(name);
            try {
                if (Files.exists(file)) {
                    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                    out.append("--- ").append(name).append('\n');
                    lines.subList(Math.max(0, lines.size() - 30), lines.size())
                            .forEach(line -> out.append(line).append('\n'));
                }
            } catch (IOException e) {
                out.append("(cannot read ").append(name).append(": ").append(e).append(")\n");
            }
        }
        return out.toString();
    }

    /**
     * Stops nginx: SIGTERM (fast shutdown: the master stops its workers), then SIGKILL to the master and to any
     * worker still there if that takes too long (a worker outlives a killed master).
     */
    @Override
    public void close() {
        List<ProcessHandle> workers = process.descendants().toList();
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
        workers.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }
}

package dev.baton.bench.http;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * nginx running the shipped {@code docs/deploy/nginx.conf} in front of the benchmark's nodes, in the foreground as
 * a child process. Only the node ports, the listen port, {@code daemon off;} and (as root) {@code user root;} are
 * changed, as in baton-server's {@code NginxFailoverTest}; every other path in the file is relative to the prefix, a
 * fresh directory.
 */
final class NginxFront implements AutoCloseable {

    private static final List<String> SHIPPED_NODES = List.of("127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003");
    private static final String SHIPPED_LISTEN = "listen 127.0.0.1:8000;";

    private final Process process;
    private final Path prefix;
    private final int port;

    private NginxFront(Process process, Path prefix, int port) {
        this.process = process;
        this.prefix = prefix;
        this.port = port;
    }

    /** {@code nginx} on PATH, else Debian's {@code /usr/sbin/nginx}. */
    static Optional<Path> executable() {
        Stream<Path> onPath = Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .filter(dir -> !dir.isBlank())
                .map(dir -> Path.of(dir, "nginx"));
        return Stream.concat(onPath, Stream.of(Path.of("/usr/sbin/nginx"))).filter(Files::isExecutable).findFirst();
    }

    /** {@code docs/deploy/nginx.conf}, from the working directory or a directory above it. */
    static Optional<Path> shippedConfig() {
        for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
            Path candidate = at.resolve("docs/deploy/nginx.conf");
            if (Files.isRegularFile(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** Starts nginx in front of {@code nodePorts} on {@code listenPort}; waits up to 15 s until it accepts. */
    static NginxFront start(Path nginx, Path shipped, List<Integer> nodePorts, int listenPort, Path prefix)
            throws IOException, InterruptedException {
        String config = Files.readString(shipped, StandardCharsets.UTF_8);
        for (int i = 0; i < SHIPPED_NODES.size(); i++) {
            String server = "server " + SHIPPED_NODES.get(i) + " ";
            if (!config.contains(server)) {
                throw new IllegalStateException(shipped + " no longer names " + SHIPPED_NODES.get(i));
            }
            config = config.replace(server, "server 127.0.0.1:" + nodePorts.get(i) + " ");
        }
        if (!config.contains(SHIPPED_LISTEN)) {
            throw new IllegalStateException(shipped + " no longer has '" + SHIPPED_LISTEN + "'");
        }
        config = config.replace(SHIPPED_LISTEN, "listen 127.0.0.1:" + listenPort + ";");
        boolean root = "root".equals(System.getProperty("user.name"));
        config = "daemon off;\n" + (root ? "user root;\n" : "") + config;
        Files.createDirectories(prefix.resolve("logs"));
        Path conf = prefix.resolve("nginx.conf");
        Files.writeString(conf, config, StandardCharsets.UTF_8);
        Process process = new ProcessBuilder(nginx.toString(), "-p", prefix + "/",
                "-e", prefix.resolve("logs/error.log").toString(), "-c", conf.toString())
                .redirectErrorStream(true)
                .redirectOutput(prefix.resolve("logs/stdout.log").toFile())
                .start();
        NginxFront front = new NginxFront(process, prefix, listenPort);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!front.accepts()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                front.close();
                throw new IllegalStateException("nginx did not start; see " + prefix.resolve("logs"));
            }
            Thread.sleep(50);
        }
        return front;
    }

    private boolean accepts() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** {@code http://127.0.0.1:<port>}. */
    URI url() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** Stops nginx (SIGTERM, then SIGKILL to it and any worker left after 10 s). */
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

    @Override
    public String toString() {
        return "nginx on " + url() + " (prefix " + prefix + ")";
    }
}

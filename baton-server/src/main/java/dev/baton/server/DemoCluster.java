package dev.baton.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Everything {@code baton demo} starts: {@code baton node --backend quorum} (or {@code bully}) processes on loopback
 * that elect their leader among themselves, with no server of any kind. Each gets a free loopback port and a data
 * directory (bully: the shared leader record file) under one temporary directory, which also holds their logs. It owns their cleanup: {@link #close()} stops every node and
 * deletes the directory, and a shutdown hook does the same if the user interrupts the demo, so nothing it started
 * outlives it.
 *
 * <p>Every wait is bounded; a wait that runs out, or a node that exits while the demo still needs it, ends the demo
 * with a message that names what did not happen and where the nodes' logs are (which are then kept).
 */
final class DemoCluster implements AutoCloseable {

    private static final String LOOPBACK = "127.0.0.1";

    private final String group;
    private final Duration timeout;
    private final Path workDir;
    private final BlockingQueue<DemoNode.Line> lines = new LinkedBlockingQueue<>();
    private final List<DemoNode> nodes = new ArrayList<>();
    private final List<DemoNode> stopping = new ArrayList<>();
    private final Map<DemoNode, String> knownLeaders = new HashMap<>();
    private final Thread cleanupHook = new Thread(this::close, "baton-demo-cleanup");
    private boolean failed;
    private boolean closing;

    DemoCluster(String group, Duration timeout) {
        this.group = group;
        this.timeout = timeout;
        try {
            this.workDir = Files.createTempDirectory("baton-demo-");
        } catch (IOException e) {
            throw CliError.failure("demo: cannot create a temporary directory for the nodes: " + e.getMessage());
        }
        Runtime.getRuntime().addShutdownHook(cleanupHook);
    }

    /** Free loopback ports for {@code count} nodes' peer transports, as {@code 127.0.0.1:PORT}. */
    static List<String> freeAddresses(int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            // Held open together, so the ports differ; closed before the nodes bind them.
            for (int i = 0; i < count; i++) {
                held.add(new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK)));
            }
            return held.stream().map(socket -> LOOPBACK + ":" + socket.getLocalPort()).toList();
        } catch (IOException e) {
            throw CliError.failure("demo: cannot find free loopback ports: " + e.getMessage());
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // it was only a probe
                }
            }
        }
    }

    /**
     * Starts one node per address, each a seed (so any majority of them can form the cluster), all in the cluster of
     * that size, on the fast profile, with a data directory each.
     */
    synchronized List<DemoNode> startNodes(List<String> addresses) {
        String seeds = String.join(",", addresses);
        List<DemoNode> started = new ArrayList<>();
        for (int i = 0; i < addresses.size(); i++) {
            String name = "node-" + (i + 1);
            started.add(start(name, addresses.get(i), List.of("--backend", Backends.QUORUM, "--group", group,
                    "--profile", "fast", "--listen", addresses.get(i), "--seeds", seeds,
                    "--cluster-size", Integer.toString(addresses.size()),
                    "--data-dir", workDir.resolve(name).toString(), "--identifier", name)));
        }
        return started;
    }

    /** The leader record file of {@link #startBullyNode}'s nodes, in the temporary directory. */
    Path leaderStoreFile() {
        return workDir.resolve("leader.json");
    }

    /** Starts one {@code --backend bully} node (fast profile) on the demo's leader record file. */
    synchronized DemoNode startBullyNode(String name, String address) {
        return start(name, address, List.of("--backend", "bully", "--group", group, "--profile", "fast",
                "--listen", address, "--leader-store", "file:" + leaderStoreFile(), "--identifier", name));
    }

    private DemoNode start(String name, String address, List<String> args) {
        DemoNode node;
        try {
            node = DemoNode.start(name, address, args, workDir.resolve(name + ".log"), lines);
        } catch (UncheckedIOException e) {
            throw CliError.failure("demo: cannot start node " + name + ": " + e.getCause().getMessage());
        }
        nodes.add(node);
        return node;
    }

    /** Every node started so far, in order. */
    synchronized List<DemoNode> nodes() {
        return List.copyOf(nodes);
    }

    /** Tells the cluster that {@code node} is meant to exit, so its exit is not reported as a failure. */
    synchronized void expectExit(DemoNode node) {
        stopping.add(node);
    }

    /**
     * Waits for the next line matching {@code condition}; lines before it are passed over (but still update what
     * {@link #leaderSeenBy} knows).
     *
     * @param what a description of the awaited fact, for the error message
     * @throws CliError (failure) if it does not come within the timeout or a node exits unexpectedly
     */
    DemoNode.Line await(String what, Predicate<DemoNode.Line> condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            DemoNode.Line line = next(what, deadline);
            if (condition.test(line)) {
                return line;
            }
        }
    }

    /** Waits until {@code condition} holds, re-checking it after every line the nodes print. */
    void awaitState(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            next(what, deadline);
        }
    }

    /** The leader {@code node} last reported (by node id), or {@code null} if it knows none. */
    String leaderSeenBy(DemoNode node) {
        return knownLeaders.get(node);
    }

    /** The demo's name of the node with id {@code nodeId}, or the id itself if it is none of the demo's. */
    synchronized String nameOf(String nodeId) {
        return nodes.stream().filter(node -> node.id().equals(nodeId)).map(DemoNode::name).findFirst()
                .orElse(nodeId);
    }

    private DemoNode.Line next(String what, long deadline) {
        long left = deadline - System.nanoTime();
        DemoNode.Line line;
        try {
            line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CliError.failure("demo interrupted while waiting until " + what);
        }
        if (line == null) {
            throw CliError.failure("demo: " + what + " did not happen within " + timeout.toSeconds()
                    + " s; node logs are in " + keepLogs());
        }
        if (line.event().equals(DemoNode.EXITED) && !isExpectedExit(line.from())) {
            throw CliError.failure("demo: node " + line.from() + " exited unexpectedly with code "
                    + line.from().awaitExit(Duration.ofSeconds(1)) + "; its log is "
                    + keepLogs().resolve(line.from().name() + ".log"));
        }
        if (line.json().has("leader")) {
            JsonNode leader = line.json().get("leader");
            knownLeaders.put(line.from(), leader.isNull() ? null : leader.asText());
        }
        return line;
    }

    /** The nodes' names, joined for a sentence: {@code node-1 and node-3}. */
    static String names(List<DemoNode> nodes) {
        List<String> names = nodes.stream().map(DemoNode::name).toList();
        if (names.size() <= 1) {
            return String.join("", names);
        }
        return names.subList(0, names.size() - 1).stream().collect(Collectors.joining(", "))
                + " and " + names.get(names.size() - 1);
    }

    private synchronized boolean isExpectedExit(DemoNode node) {
        return stopping.contains(node) || failed || closing;
    }

    /** Marks the demo as failed, so that the node logs survive cleanup for the user to read, and names them. */
    private synchronized Path keepLogs() {
        failed = true;
        return workDir;
    }

    /**
     * Stops every node, then deletes the temporary directory (data directories and logs) unless a failure kept it.
     * Idempotent; synchronized so that the shutdown hook, if the user interrupts a cleanup already under way, waits
     * for it.
     */
    @Override
    public synchronized void close() {
        if (closing) {
            return;
        }
        closing = true;
        nodes.forEach(DemoNode::terminate); // all at once: each node needs a moment to leave and exit
        nodes.forEach(DemoNode::close);
        if (!failed) {
            deleteWorkDir();
        }
        if (Thread.currentThread() != cleanupHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(cleanupHook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is already exiting; the hook finds everything closed
            }
        }
    }

    private void deleteWorkDir() {
        try (Stream<Path> files = Files.walk(workDir)) {
            for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            // temporary files; the OS cleans them up eventually
        }
    }
}

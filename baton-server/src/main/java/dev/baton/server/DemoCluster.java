package dev.baton.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.Lease;
import dev.baton.core.store.StoreException;
import dev.baton.redis.RedisStore;
import dev.baton.testkit.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Everything {@code baton demo} starts: a private Redis, node processes on it, and a store client for reading the
 * lease. It owns their cleanup: {@link #close()} stops every node and the server, and a shutdown hook does the same if
 * the user interrupts the demo, so nothing it started outlives it.
 *
 * <p>Every wait is bounded; a wait that runs out, or a node that exits while the demo still needs it, ends the demo
 * with a message that names what did not happen and where the nodes' logs are.
 */
final class DemoCluster implements AutoCloseable {

    private final String group;
    private final Duration timeout;
    private final Path logDir;
    private final BlockingQueue<DemoNode.Line> lines = new LinkedBlockingQueue<>();
    private final List<DemoNode> nodes = new ArrayList<>();
    private final List<DemoNode> stopping = new ArrayList<>();
    private final Map<DemoNode, String> knownLeaders = new HashMap<>();
    private final Thread cleanupHook = new Thread(this::close, "baton-demo-cleanup");
    private RedisServer redis;
    private CoordinationStore store;
    private boolean failed;
    private boolean closing;

    DemoCluster(String group, Duration timeout) {
        this.group = group;
        this.timeout = timeout;
        try {
            this.logDir = Files.createTempDirectory("baton-demo-");
        } catch (IOException e) {
            throw CliError.failure("demo: cannot create a directory for node logs: " + e.getMessage());
        }
        Runtime.getRuntime().addShutdownHook(cleanupHook);
    }

    /** Starts the private Redis and connects the demo's own store client to it. */
    synchronized RedisServer startRedis() {
        try {
            redis = RedisServer.start();
        } catch (RuntimeException e) {
            throw CliError.failure("demo: cannot start a private Redis server: " + e.getMessage());
        }
        try {
            store = RedisStore.connect(redis.uri());
        } catch (StoreException e) {
            throw CliError.failure("demo: cannot connect to the private Redis server: " + e.getMessage());
        }
        return redis;
    }

    /** Starts a node process in the group, on the fast profile. */
    synchronized DemoNode startNode(String name) {
        List<String> args = List.of("--backend", redis.uri(), "--group", group, "--profile", "fast",
                "--node-id", name, "--identifier", "demo-" + name);
        DemoNode node;
        try {
            node = DemoNode.start(name, args, logDir.resolve(name + ".log"), lines);
        } catch (UncheckedIOException e) {
            throw CliError.failure("demo: cannot start node " + name + ": " + e.getCause().getMessage());
        }
        nodes.add(node);
        return node;
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

    /** The group's lease as Redis has it now, with the time it has left by Redis's clock. */
    Optional<Lease> lease() {
        try {
            return store.read(group).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CliError.failure("demo interrupted while reading the lease");
        } catch (ExecutionException | TimeoutException e) {
            throw CliError.failure("demo: cannot read the lease from Redis: " + e);
        }
    }

    private synchronized boolean isExpectedExit(DemoNode node) {
        return stopping.contains(node) || failed || closing;
    }

    /** Marks the demo as failed, so that the node logs survive cleanup for the user to read, and names them. */
    private synchronized Path keepLogs() {
        failed = true;
        return logDir;
    }

    /**
     * Stops every node, the store client and the server, then deletes the logs unless a failure kept them. Idempotent;
     * synchronized so that the shutdown hook, if the user interrupts a cleanup already under way, waits for it.
     */
    @Override
    public synchronized void close() {
        if (closing) {
            return;
        }
        closing = true;
        nodes.forEach(DemoNode::terminate); // all at once: each node needs a moment to release and exit
        nodes.forEach(DemoNode::close);
        if (store != null) {
            store.close();
        }
        if (redis != null) {
            redis.close();
        }
        if (!failed) {
            deleteLogs();
        }
        if (Thread.currentThread() != cleanupHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(cleanupHook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is already exiting; the hook finds everything closed
            }
        }
    }

    private void deleteLogs() {
        try (Stream<Path> files = Files.walk(logDir)) {
            for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            // temporary files; the OS cleans them up eventually
        }
    }
}

package dev.baton.bench.peer;

import dev.baton.peer.transport.PeerAddress;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link PeerNode} child JVM as the {@code peer-failover} and {@code bully-failover} scenarios see it: its id, when it is ready, the leader it
 * follows, the active members it counts while it leads, and its {@code acquired} and {@code started} lines, forwarded
 * to a queue shared by all nodes.
 */
final class PeerProcess {

    /** An event line of one node: {@code acquired} (with its term) or {@code started} (term 0). */
    record Event(PeerProcess node, String kind, long term, long atNanos) {
    }

    private final int slot;
    private final Process process;
    private final CompletableFuture<String> nodeId = new CompletableFuture<>();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private volatile String leaderId = "-";
    private volatile long leaderTerm;
    private volatile long activeMembers;
    private volatile long ledTerm;

    private PeerProcess(int slot, Process process, BlockingQueue<Event> events) {
        this.slot = slot;
        this.process = process;
        Thread reader = new Thread(() -> read(events), "peer-node-reader-" + slot);
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code PeerNode} with the same JVM as this one, on {@code listen} and {@code dataDir}. */
    static PeerProcess start(int slot, PeerAddress listen, List<PeerAddress> seeds, int clusterSize, Path dataDir,
            String group, BlockingQueue<Event> events) throws IOException {
        return launch(slot, events, listen.format(),
                String.join(",", seeds.stream().map(PeerAddress::format).toList()), String.valueOf(clusterSize),
                dataDir.toString(), group);
    }

    /** Starts {@code PeerNode bully} (a bully node) on {@code listen}, with its leader record in {@code storeFile}. */
    static PeerProcess startBully(int slot, PeerAddress listen, Path storeFile, String group,
            BlockingQueue<Event> events) throws IOException {
        return launch(slot, events, "bully", listen.format(), storeFile.toString(), group);
    }

    private static PeerProcess launch(int slot, BlockingQueue<Event> events, String... args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                PeerNode.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        return new PeerProcess(slot, process, events);
    }

    private void read(BlockingQueue<Event> events) {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] parts = line.split(" ");
                switch (parts[0]) {
                    case "node" -> nodeId.complete(parts[1]);
                    case "ready" -> ready.complete(null);
                    case "leader" -> {
                        leaderTerm = Long.parseLong(parts[2]);
                        leaderId = parts[1];
                    }
                    case "active" -> activeMembers = Long.parseLong(parts[1]);
                    case "acquired" -> {
                        ledTerm = Long.parseLong(parts[1]);
                        activeMembers = 0;
                        events.add(new Event(this, "acquired", ledTerm, Long.parseLong(parts[2])));
                    }
                    case "lost" -> ledTerm = 0;
                    case "started" -> events.add(new Event(this, "started", 0, Long.parseLong(parts[1])));
                    default -> System.err.println("[node-" + slot + "] " + line);
                }
            }
        } catch (IOException e) {
            // The process died (SIGKILL is the point of the scenario): its pipe closes.
        } finally {
            ready.completeExceptionally(new IllegalStateException("node-" + slot + " exited"));
            nodeId.completeExceptionally(new IllegalStateException("node-" + slot + " exited"));
        }
    }

    /** One crash failover: when the leader was killed, when a survivor first opened a round (0: none seen), who won. */
    record Failover(long killAt, long detectedAt, Event acquired) {
    }

    /**
     * Kills {@code leader} with SIGKILL and waits for another node's {@code acquired} line with a term above
     * {@code term}, noting the first survivor's {@code started} line on the way.
     *
     * @throws IllegalStateException if no successor acquires within {@code timeoutMillis}
     */
    static Failover killAndAwaitSuccessor(PeerProcess leader, long term, BlockingQueue<Event> events,
            long timeoutMillis) throws InterruptedException {
        events.clear();
        long killAt = System.nanoTime();
        leader.kill();
        long detected = 0;
        long deadline = killAt + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            Event event = events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (event == null) {
                throw new IllegalStateException("no new leader within " + timeoutMillis + " ms of killing node-"
                        + leader.slot());
            }
            if (event.node() == leader) {
                continue;
            }
            if (event.kind().equals("started") && detected == 0) {
                detected = event.atNanos();
            } else if (event.kind().equals("acquired") && event.term() > term) {
                return new Failover(killAt, detected, event);
            }
        }
    }

    int slot() {
        return slot;
    }

    /** The node's id (its peer address); waits for its first line. */
    String nodeId(long timeoutSeconds) throws Exception {
        return nodeId.get(timeoutSeconds, TimeUnit.SECONDS);
    }

    /** Waits until the node first follows a leader or leads. */
    void awaitReady(long timeoutSeconds) throws Exception {
        ready.get(timeoutSeconds, TimeUnit.SECONDS);
    }

    /** The id of the leader this node last said it follows ({@code -} for none) and that leader's term. */
    String leaderId() {
        return leaderId;
    }

    long leaderTerm() {
        return leaderTerm;
    }

    /** The term this node leads, or 0. */
    long ledTerm() {
        return ledTerm;
    }

    /** While this node leads: the members its table last had ACTIVE. */
    long activeMembers() {
        return activeMembers;
    }

    /** SIGKILL, as {@link Process#destroyForcibly()} does on Linux; returns at once. */
    void kill() {
        process.destroyForcibly();
    }

    boolean awaitExit(long timeoutSeconds) throws InterruptedException {
        return process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    }

    /** Ends the node gently (stdin closed: it closes its election and exits), or by SIGKILL if it does not exit. */
    void stop() throws InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // Already gone.
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}

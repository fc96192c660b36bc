package dev.baton.bench.failover;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link BenchNode} child JVM as the failover scenario sees it: its node id, when it is ready, the
 * {@code acquired} lines it prints, forwarded to a queue shared by all nodes, and its lease calls the store granted
 * ({@code acquired} and {@code renewed} lines), forwarded to a second shared queue if one is given and remembered as
 * the {@link #lastGrantSent() last one sent}. Other scenarios start their own child mains through
 * {@link #start(String, Class, List)}, printing the same {@code node} and {@code ready} lines.
 */
public final class NodeProcess {

    /**
     * One {@code acquired} line and which node printed it: the listener's time, and when the granted acquire was
     * sent and answered, all on the machine-wide monotonic clock.
     */
    record Acquired(NodeProcess node, long term, long atNanos, long acquireSent, long acquireGranted) {
    }

    /** A lease call (acquire or renew) the store granted: when it was sent and when its reply arrived. */
    record Grant(NodeProcess node, long sentNanos, long grantedNanos) {
    }

    private final String name;
    private final Process process;
    private final CompletableFuture<String> nodeId = new CompletableFuture<>();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final CompletableFuture<Void> outputRead = new CompletableFuture<>();
    private volatile long lastGrantSent;

    private NodeProcess(String name, Process process, BlockingQueue<Acquired> acquisitions,
            BlockingQueue<Grant> grants) {
        this.name = name;
        this.process = process;
        Thread reader = new Thread(() -> read(acquisitions, grants), "bench-node-reader-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code java -cp <classpath> BenchNode uri group name} with the same JVM as this one; {@code uri} is the
     * store's ({@code redis://…} or {@code postgresql://…}) and decides the backend the node runs on.
     */
    static NodeProcess start(String name, String uri, String group, BlockingQueue<Acquired> acquisitions)
            throws IOException {
        return start(name, uri, group, acquisitions, null);
    }

    /**
     * As {@link #start(String, String, String, BlockingQueue)}, with every granted lease call put on {@code grants}.
     */
    static NodeProcess start(String name, String uri, String group, BlockingQueue<Acquired> acquisitions,
            BlockingQueue<Grant> grants) throws IOException {
        return new NodeProcess(name, launch(BenchNode.class, List.of(uri, group, name)), acquisitions, grants);
    }

    /**
     * Starts {@code java -cp <classpath> main args…} with the same JVM as this one: a child that prints
     * {@code node <id>} and {@code ready} as {@link BenchNode} does (other lines go to stderr) and exits when its
     * stdin closes.
     */
    public static NodeProcess start(String name, Class<?> main, List<String> args) throws IOException {
        return new NodeProcess(name, launch(main, args), new LinkedBlockingQueue<>(), null);
    }

    private static Process launch(Class<?> main, List<String> args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(args);
        return new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
    }

    private void read(BlockingQueue<Acquired> acquisitions, BlockingQueue<Grant> grants) {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] parts = line.split(" ");
                switch (parts[0]) {
                    case "node" -> nodeId.complete(parts[1]);
                    case "ready" -> ready.complete(null);
                    case "acquired" -> {
                        Acquired acquired = new Acquired(this, Long.parseLong(parts[1]), Long.parseLong(parts[2]),
                                Long.parseLong(parts[3]), Long.parseLong(parts[4]));
                        granted(grants, acquired.acquireSent(), acquired.acquireGranted());
                        acquisitions.add(acquired);
                    }
                    case "renewed" -> granted(grants, Long.parseLong(parts[1]), Long.parseLong(parts[2]));
                    default -> System.err.println("[" + name + "] " + line);
                }
            }
        } catch (IOException e) {
            // The process died (SIGKILL is the point of the scenario): its pipe closes.
        } finally {
            outputRead.complete(null);
            ready.completeExceptionally(new IllegalStateException(name + " exited"));
            nodeId.completeExceptionally(new IllegalStateException(name + " exited"));
        }
    }

    private void granted(BlockingQueue<Grant> grants, long sent, long granted) {
        lastGrantSent = sent;
        if (grants != null) {
            grants.add(new Grant(this, sent, granted));
        }
    }

    /**
     * When the last lease call the store granted this node was sent (0 before the first): its lease runs at least
     * a TTL from then, on a store whose clock does not run fast.
     */
    long lastGrantSent() {
        return lastGrantSent;
    }

    String name() {
        return name;
    }

    /** The node's election id; waits for its first line. */
    String nodeId(long timeoutSeconds) throws Exception {
        return nodeId.get(timeoutSeconds, TimeUnit.SECONDS);
    }

    /** Waits until the node's first election round resolved. */
    public void awaitReady(long timeoutSeconds) throws Exception {
        ready.get(timeoutSeconds, TimeUnit.SECONDS);
    }

    /** SIGKILL, as {@link Process#destroyForcibly()} does on Linux; returns at once. */
    public void kill() {
        process.destroyForcibly();
    }

    /** Waits until the process is gone and every line it printed has been read (after {@link #kill()}). */
    boolean awaitOutputRead(long timeoutSeconds) throws Exception {
        try {
            outputRead.get(timeoutSeconds, TimeUnit.SECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        }
    }

    /** Waits for the process to be gone (after {@link #kill()}). */
    public boolean awaitExit(long timeoutSeconds) throws InterruptedException {
        return process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    }

    /** Ends the node gently (stdin closed: it releases and exits), or by SIGKILL if it does not exit in time. */
    public void stop() throws InterruptedException {
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

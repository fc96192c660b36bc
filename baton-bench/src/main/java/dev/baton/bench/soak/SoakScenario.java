package dev.baton.bench.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.soak.SoakSchedule.Kind;
import dev.baton.bench.soak.SoakSchedule.Phase;
import dev.baton.bench.support.Environment;
import dev.baton.testkit.RedisServer;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The soak: two clusters of five {@code baton node} processes of the shipped jar side by side, each node with
 * {@code -Xmx256m -XX:MaxDirectMemorySize=64m}, {@code --profile fast} and {@code --http}: one on a private Redis
 * running the work cluster with four simulated workers, one on {@code --backend peer} (no server). Steady load
 * ({@link SteadyLoad}) runs throughout; floods come in turn ({@link SoakSchedule}): (a) a worker flooding the Redis
 * leader with messages, (b) 300 slow HTTP clients against the Redis leader, (c) 200 connections holding back the last
 * byte of a 1 MiB frame against the peer leader's protocol port. Every node is probed ({@link NodeProbes}) and the
 * report ({@link SoakReport}) says per phase and per node what happened. Passes if each cluster's leader keeps its
 * leadership and answers {@code /cluster/health} within 1 s throughout.
 *
 * <p>Duration: {@code --duration} (e.g. {@code 2m} for a development run with one flood of each kind), else
 * {@code -Dbaton.bench.soak.minutes} (default 30). Everything it starts is stopped on return, and on Ctrl-C by a
 * shutdown hook.
 */
public final class SoakScenario implements Scenario {

    private static final String DEFAULT_JAR = "baton-server/target/baton.jar";
    private static final String GROUP = "bench-soak";
    private static final int NODES = 5;
    private static final int WORKERS = 4;
    private static final int SLOW_CLIENTS = 300;
    private static final int FRAME_CONNECTIONS = 200;
    private static final long ELECTION_PATIENCE_SECONDS = 180;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    @Override
    public String name() {
        return "soak";
    }

    @Override
    public String description() {
        return "5 Redis + 5 peer nodes (-Xmx256m) for 30 min (--duration) under steady load and floods: leader kept,"
                + " health < 1 s";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        out.println("## Soak: steady load and floods on small nodes");
        out.println();
        Path jar = Path.of(System.getProperty("baton.jar", DEFAULT_JAR)).toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            String why = DEFAULT_JAR + " not found (build it: ./mvnw -pl baton-server -am package -DskipTests,"
                    + " or pass -Dbaton.jar=...)";
            out.println("Skipped: " + why + ".");
            out.println();
            System.err.println("soak skipped: " + why);
            return;
        }
        Duration total = options.duration()
                .orElse(Duration.ofMinutes(Long.getLong("baton.bench.soak.minutes", 30)));
        List<Phase> phases = SoakSchedule.of(total);
        Path work = Files.createTempDirectory("baton-bench-soak-");
        Processes running = new Processes();
        Thread hook = new Thread(running::kill, "soak-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        boolean completed = false;
        try (RedisServer redis = RedisServer.start()) {
            running.redis = redis;
            WorkerPool workers = new WorkerPool(WORKERS);
            running.workers = workers;
            List<SoakNode> redisNodes = startRedisCluster(jar, redis, workers, work, running);
            Map<String, SoakNode> byListen = new HashMap<>();
            List<SoakNode> peerNodes = startPeerCluster(jar, work, running, byListen);
            SoakReport.Cluster redisCluster = awaitLeader("redis", redisNodes, Map.of());
            SoakReport.Cluster peerCluster = awaitLeader("peer", peerNodes, byListen);
            awaitWorkersOnline(redisCluster.leader());
            System.err.printf("soak: leaders %s (redis) and %s (peer); running %d s, logs in %s%n",
                    redisCluster.leader().name(), peerCluster.leader().name(), total.toSeconds(), work);

            out.println(Environment.machine() + ". Private redis-server on " + redis.uri() + ". Two clusters of "
                    + NODES + " `java " + String.join(" ", SoakNode.JVM_LIMITS) + " -jar baton.jar node --profile"
                    + " fast --http ...` processes side by side: `redis` (`--backend redis://... --workers` with "
                    + WORKERS + " simulated workers) and `peer` (`--backend peer --cluster-size " + NODES
                    + " --secret-file ... --data-dir ...`). Steady load throughout: " + SteadyLoad.ITEMS + " work"
                    + " items replaced at 20 PUT/s on the Redis leader, 10 item reads/s over the Redis nodes, 5"
                    + " `/cluster/status` reads/s over the peer nodes. Every node: `/cluster/health` once a second"
                    + " (timeout 5 s), threads, heap (`/metrics`), RSS (`/proc`) and `/cluster/leader` every 5 s."
                    + " Floods: (a) one of the workers replaced by a flooding one (1,000-message batches as fast as"
                    + " the leader reads), then by a normal one again; (b) " + SLOW_CLIENTS + " slow HTTP clients"
                    + " (PUT headers, then one body byte a second) on the Redis leader; (c) " + FRAME_CONNECTIONS
                    + " raw TCP connections announcing a 1 MiB frame and holding back its last byte on the peer"
                    + " leader's `--listen` port. Run length " + total.toSeconds() + " s.");
            out.println();

            try (NodeProbes probes = new NodeProbes(concat(redisNodes, peerNodes))) {
                SteadyLoad load = new SteadyLoad(redisNodes, peerNodes,
                        () -> currentLeader(redisNodes).orElse(redisCluster.leader()));
                running.load = load;
                long t0 = System.nanoTime();
                Map<Integer, String> redisFloods = new HashMap<>();
                Map<Integer, String> peerFloods = new HashMap<>();
                for (Phase phase : phases) {
                    sleepUntil(t0 + phase.from().toNanos());
                    System.err.printf("soak: %.1f min, phase %d: %s%n", phase.from().toSeconds() / 60.0,
                            phase.index(), phase.kind().description());
                    runPhase(phase, t0, workers, redisCluster.leader(), peerCluster.leader(), running, redisFloods,
                            peerFloods);
                }
                long end = t0 + total.toNanos();
                sleepUntil(end);
                load.close();
                // Let writes in flight settle before reading the items back.
                TimeUnit.SECONDS.sleep(2);
                SteadyLoad.Verdict items = load.verify(currentLeader(redisNodes).orElse(redisCluster.leader()));
                probes.close();

                SoakReport report = new SoakReport(phases, t0, end, probes, load.outcomes());
                out.println("### Redis cluster (work cluster, floods a and b), per phase");
                out.println();
                report.printPhases(out, redisCluster, redisFloods);
                out.println("### Peer cluster (flood c), per phase");
                out.println();
                report.printPhases(out, peerCluster, peerFloods);
                out.println("### Per node, whole run");
                out.println();
                report.printNodes(out, List.of(redisCluster, peerCluster));
                String redisVerdict = report.verdict(redisCluster);
                String peerVerdict = report.verdict(peerCluster);
                out.println("- " + redisVerdict);
                out.println("- " + peerVerdict);
                out.println("- Work items: " + items.expected() + " ids written, " + items.lost() + " lost (last"
                        + " acknowledged write missing or older at the end), " + items.active() + " active on a"
                        + " worker at the end" + (items.detail().isEmpty() ? "" : "; " + items.detail()) + ".");
                out.println();
                // A failed verdict keeps the node logs (the JSON lines say why a leadership changed).
                completed = items.lost() == 0 && redisVerdict.contains(": PASS.") && peerVerdict.contains(": PASS.");
            }
        } finally {
            running.stop();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down: the hook is running
            }
            removeOrReport(work, completed);
        }
        out.flush();
    }

    private void runPhase(Phase phase, long t0, WorkerPool workers, SoakNode redisLeader, SoakNode peerLeader,
            Processes running, Map<Integer, String> redisFloods, Map<Integer, String> peerFloods) throws Exception {
        long until = t0 + phase.to().toNanos();
        Kind kind = phase.kind();
        switch (kind) {
            case QUIET -> sleepUntil(until);
            case WORKER_FLOOD -> {
                long before = workers.floodMessages();
                workers.startFlood();
                try {
                    sleepUntil(until);
                } finally {
                    workers.stopFlood();
                }
                redisFloods.put(phase.index(), (workers.floodMessages() - before) + " flood messages queued by the"
                        + " flooding worker");
            }
            case SLOW_HTTP -> redisFloods.put(phase.index(),
                    flood(new SlowHttpClients(redisLeader.httpPort(), SLOW_CLIENTS), "soak-slow-http", until,
                            running));
            case PARTIAL_FRAMES -> peerFloods.put(phase.index(),
                    flood(new PartialFrames(peerLeader.peerPort(), FRAME_CONNECTIONS), "soak-frames", until,
                            running));
        }
    }

    private static String flood(RawSocketFlood flood, String name, long until, Processes running)
            throws InterruptedException {
        running.flood = flood;
        flood.start(name);
        try {
            sleepUntil(until);
        } finally {
            flood.stop();
            running.flood = null;
        }
        return flood.summary();
    }

    private static List<SoakNode> startRedisCluster(Path jar, RedisServer redis, WorkerPool workers, Path work,
            Processes running) throws IOException {
        List<SoakNode> nodes = new ArrayList<>();
        for (int i = 1; i <= NODES; i++) {
            String name = "redis-" + i;
            SoakNode node = SoakNode.start(jar, name, "redis", List.of("--backend", redis.uri(), "--group", GROUP,
                    "--node-id", name, "--workers", workers.urls()), freePort(), work, 0);
            running.nodes.add(node);
            nodes.add(node);
        }
        return nodes;
    }

    private static List<SoakNode> startPeerCluster(Path jar, Path work, Processes running,
            Map<String, SoakNode> byListen) throws IOException {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        Path secretFile = Files.write(work.resolve("peer-secret"), secret);
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            ports.add(freePort());
        }
        String seeds = String.join(",", ports.stream().map(p -> "127.0.0.1:" + p).toList());
        List<SoakNode> nodes = new ArrayList<>();
        for (int i = 1; i <= NODES; i++) {
            String listen = "127.0.0.1:" + ports.get(i - 1);
            SoakNode node = SoakNode.start(jar, "peer-" + i, "peer", List.of("--backend", "peer", "--group", GROUP,
                    "--listen", listen, "--seeds", seeds, "--cluster-size", String.valueOf(NODES),
                    "--secret-file", secretFile.toString(), "--data-dir", work.resolve("peer-" + i).toString()),
                    freePort(), work, ports.get(i - 1));
            running.nodes.add(node);
            nodes.add(node);
            byListen.put(listen, node);
        }
        return nodes;
    }

    /** Waits until every node names the same leader, and returns the cluster with it and its term. */
    private SoakReport.Cluster awaitLeader(String name, List<SoakNode> nodes, Map<String, SoakNode> byListen)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ELECTION_PATIENCE_SECONDS);
        while (System.nanoTime() < deadline) {
            String agreed = null;
            long term = -1;
            boolean all = true;
            for (SoakNode node : nodes) {
                Optional<JsonNode> leader = getJson(node, "/cluster/leader");
                String id = leader.map(l -> l.path("leader_id").asText("")).orElse("");
                if (id.isEmpty() || (agreed != null && !agreed.equals(id))) {
                    all = false;
                    break;
                }
                agreed = id;
                term = leader.get().path("term").asLong(-1);
            }
            if (all && agreed != null) {
                String id = agreed;
                SoakNode leader = byListen.containsKey(id) ? byListen.get(id)
                        : nodes.stream().filter(n -> n.name().equals(id)).findFirst().orElseThrow(
                                () -> new IllegalStateException(name + " cluster names an unknown leader " + id));
                return new SoakReport.Cluster(name, nodes, leader, term);
            }
            for (SoakNode node : nodes) {
                if (!node.isAlive()) {
                    throw new IllegalStateException(node.name() + " exited at start; see its .err.log");
                }
            }
            TimeUnit.MILLISECONDS.sleep(250);
        }
        throw new IllegalStateException("the " + name + " cluster did not agree on a leader within "
                + ELECTION_PATIENCE_SECONDS + " s");
    }

    /** Waits (up to a minute, then goes on) until the leader reports every worker online. */
    private void awaitWorkersOnline(SoakNode leader) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Optional<JsonNode> state = getJson(leader, "/work/state");
            if (state.isPresent()) {
                long online = 0;
                for (JsonNode w : state.get().path("workers")) {
                    online += w.path("online").asBoolean(false) ? 1 : 0;
                }
                if (online == WORKERS) {
                    return;
                }
            }
            TimeUnit.MILLISECONDS.sleep(250);
        }
        System.err.println("soak: not every worker was online after 60 s; going on");
    }

    /** The Redis node that says it leads now, if one answers. */
    private Optional<SoakNode> currentLeader(List<SoakNode> nodes) {
        for (SoakNode node : nodes) {
            try {
                Optional<JsonNode> leader = getJson(node, "/cluster/leader");
                if (leader.isPresent()) {
                    String id = leader.get().path("leader_id").asText("");
                    return nodes.stream().filter(n -> n.name().equals(id)).findFirst();
                }
            } catch (IOException e) {
                // ask the next node
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    private Optional<JsonNode> getJson(SoakNode node, String path) throws IOException, InterruptedException {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + node.httpPort() + path)).timeout(Duration.ofSeconds(5))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(JSON.readTree(response.body())) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final java.util.Random PORTS = new java.util.Random();

    /**
     * A loopback port that is free now, below Linux's ephemeral range (32768 and up): the ten nodes open many
     * outbound connections while they start, and an ephemeral port taken by one of them could be the port a node
     * started a moment later is told to listen on. Never the same port twice in one run.
     */
    private static int freePort() throws IOException {
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = 20_000 + PORTS.nextInt(12_000);
            if (!HANDED_OUT.add(port)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return socket.getLocalPort();
            } catch (IOException e) {
                // taken: try another
            }
        }
        throw new IOException("no free loopback port found in 20000-31999");
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** Deletes the work directory after a completed run; after a failure keeps it (the node logs) and says where. */
    private static void removeOrReport(Path dir, boolean completed) {
        if (!completed) {
            System.err.println("soak: node logs kept in " + dir + " (NAME.log: JSON lines, NAME.err.log: stderr)");
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("soak: could not delete " + dir + ": " + e);
        }
    }

    /**
     * Everything the soak started, so that both the normal end and the Ctrl-C hook can stop it. The hook kills
     * (SIGKILL, no waiting: the JVM is exiting); the normal end stops the nodes gently. Redis has its own hook in the
     * testkit.
     */
    private static final class Processes {
        final List<SoakNode> nodes = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile RedisServer redis;
        volatile WorkerPool workers;
        volatile SteadyLoad load;
        volatile RawSocketFlood flood;

        void stop() {
            RawSocketFlood f = flood;
            if (f != null) {
                f.stop();
            }
            if (load != null) {
                load.close();
            }
            // SIGTERM to all first, so the nodes shut down in parallel, then wait for each.
            nodes.forEach(n -> n.signalStop());
            nodes.forEach(n -> n.stop(10));
            if (workers != null) {
                workers.close();
            }
        }

        void kill() {
            RawSocketFlood f = flood;
            if (f != null) {
                f.stop();
            }
            nodes.forEach(SoakNode::kill);
            if (workers != null) {
                workers.close();
            }
            RedisServer r = redis;
            if (r != null) {
                r.close();
            }
        }
    }
}

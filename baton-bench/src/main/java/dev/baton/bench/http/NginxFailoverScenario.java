package dev.baton.bench.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.PhaseBreakdown;
import dev.baton.bench.stats.Samples;
import dev.baton.bench.support.Environment;
import dev.baton.core.store.Lease;
import dev.baton.redis.RedisStore;
import dev.baton.testkit.RedisServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Issue 4's "writes through nginx after a leader SIGKILL": three {@code baton node --http} processes of the shipped
 * jar (fast profile: lease TTL 3 s) on a private Redis behind nginx running the shipped {@code docs/deploy/nginx.conf}.
 * Each round SIGKILLs the leader, then sends {@code PUT /work/items/...} through nginx one after another (every
 * {@value #RETRY_PAUSE_MILLIS} ms, as a client retrying a 503 would) until one is acknowledged. The result is the time
 * from the kill to that acknowledgement; the lease time left at the kill (read from Redis just before it) is shown
 * apart, because no node may take over before it runs out. The killed node is restarted on the same port, so nginx
 * always has three nodes.
 */
public final class NginxFailoverScenario implements Scenario {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String GROUP = "bench-nginx-failover";
    private static final long START_TIMEOUT_SECONDS = 60;
    private static final long RECOVERY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final long SETTLE_MILLIS = 4_000;
    private static final long RETRY_PAUSE_MILLIS = 2;
    /** A renewal already sent when the leader died shows up as a lease this much longer than read before the kill. */
    private static final long RENEWAL_SLACK_NANOS = Duration.ofMillis(20).toNanos();

    @Override
    public String name() {
        return "nginx-failover";
    }

    @Override
    public String description() {
        return "SIGKILL of the leader -> first write acknowledged through nginx (shipped nginx.conf, fast profile)";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        out.println("## Writes through nginx after a leader SIGKILL");
        out.println();
        Optional<Path> nginx = NginxFront.executable();
        Optional<Path> config = NginxFront.shippedConfig();
        Optional<Path> jar = HttpNode.jar();
        if (nginx.isEmpty() || config.isEmpty() || jar.isEmpty()) {
            String why = nginx.isEmpty() ? "nginx is not installed (not on PATH, no /usr/sbin/nginx)"
                    : config.isEmpty() ? "docs/deploy/nginx.conf not found above the working directory"
                    : HttpNode.DEFAULT_JAR + " not found (build it: ./mvnw -pl baton-server -am package -DskipTests,"
                            + " or pass -Dbaton.jar=...)";
            out.println("Skipped: " + why + ".");
            out.println();
            System.err.println("nginx-failover skipped: " + why);
            return;
        }
        int n = options.n(20);
        int warmup = options.warmup(1);
        Random random = new Random(options.seed());
        Path work = Files.createTempDirectory("baton-bench-nginx-");
        List<HttpNode> nodes = new ArrayList<>();
        NodeApi api = new NodeApi();
        boolean completed = false;
        try (RedisServer redis = RedisServer.start(); RedisStore observer = RedisStore.connect(redis.uri())) {
            List<Integer> ports = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                int port = NodeApi.freePort();
                ports.add(port);
                nodes.add(HttpNode.start(jar.get(), "node-" + i, redis.uri(), GROUP, port, work));
            }
            try (NginxFront front = NginxFront.start(nginx.get(), config.get(), ports, NodeApi.freePort(),
                    work.resolve("nginx"))) {
                out.println(Environment.machine() + ". " + nginxVersion(nginx.get()) + ", private redis-server on "
                        + redis.uri() + ".");
                out.println("3 `java -jar baton.jar node --profile fast --http ...` processes (lease TTL 3 s, renew"
                        + " every 1 s); nginx with the shipped docs/deploy/nginx.conf (ports substituted). " + n
                        + " kills after " + warmup + " warm-up kill(s), each after a " + SETTLE_MILLIS / 1000
                        + " s settle plus a random 0-1 s, so kills land anywhere in the renewal cycle. After the kill"
                        + " the client sends PUT /work/items/{id} through nginx every " + RETRY_PAUSE_MILLIS
                        + " ms until one is acknowledged (2xx). The killed node is restarted on its port.");
                out.println();
                api.awaitAgreedLeader(nodes, START_TIMEOUT_SECONDS);
                measure(nodes, front, api, observer, random, warmup, n, out);
            }
            completed = true;
        } finally {
            for (HttpNode node : nodes) {
                node.stop();
            }
            WorkDirectory.removeOrReport(work, completed, "nginx-failover");
        }
        out.flush();
    }

    private void measure(List<HttpNode> nodes, NginxFront front, NodeApi api, RedisStore observer, Random random,
            int warmup, int n, PrintStream out) throws Exception {
        Samples raw = new Samples(warmup, n);
        Samples beyond = new Samples(warmup, n);
        Samples remaining = new Samples(warmup, n);
        Map<String, String> explained = new LinkedHashMap<>();
        explained.put("lease expiry -> new leader's leadership-acquired line", "followers wake at the expiry they"
                + " read (+0-5 ms jitter), acquire, and the node prints the event (stamp: its wall clock, ms)");
        explained.put("leadership-acquired -> write acknowledged via nginx", "the client's next retry (every "
                + RETRY_PAUSE_MILLIS + " ms) reaches the new leader through nginx, which writes under its term");
        PhaseBreakdown phases = new PhaseBreakdown(warmup, n, explained);
        long refusedTotal = 0;
        Map<Integer, Integer> refusals = new TreeMap<>();
        long sequence = 0;
        for (int k = 1; k <= warmup + n; k++) {
            Thread.sleep(SETTLE_MILLIS + random.nextInt(1000));
            String leaderId = api.awaitAgreedLeader(nodes, START_TIMEOUT_SECONDS);
            int status = api.putItem(front.url(), "steady-" + k);
            if (status / 100 != 2) {
                throw new IllegalStateException("a write through nginx failed before kill " + k + ": " + status);
            }
            int slot = indexOf(nodes, leaderId);
            HttpNode leader = nodes.get(slot);

            Lease lease = observer.leases().read(GROUP).get(2, TimeUnit.SECONDS)
                    .orElseThrow(() -> new IllegalStateException("no lease while " + leaderId + " leads"));
            long readAt = System.nanoTime();
            if (!lease.owner().equals(leaderId)) {
                throw new IllegalStateException("lease held by " + lease.owner() + ", expected " + leaderId);
            }
            long killAt = System.nanoTime();
            Instant killWall = Instant.now();
            leader.kill();
            long left = lease.remaining().toNanos() - (killAt - readAt);
            Optional<Lease> after = observer.leases().read(GROUP).get(2, TimeUnit.SECONDS);
            long afterAt = System.nanoTime();
            if (after.isPresent() && after.get().owner().equals(leaderId) && after.get().term() == lease.term()) {
                left = Math.max(left, after.get().remaining().toNanos() + (afterAt - killAt) - RENEWAL_SLACK_NANOS);
            }

            int refused = 0;
            long acknowledgedAt;
            while (true) {
                int answer = api.putItem(front.url(), "item-" + k + "-" + sequence++);
                if (answer / 100 == 2) {
                    acknowledgedAt = System.nanoTime();
                    break;
                }
                refused++;
                if (k > warmup) {
                    refusals.merge(answer, 1, Integer::sum);
                }
                if (System.nanoTime() - killAt > RECOVERY_TIMEOUT_NANOS) {
                    throw new IllegalStateException("writes through nginx did not recover within 20 s of kill " + k
                            + "; last answer " + answer);
                }
                Thread.sleep(RETRY_PAUSE_MILLIS);
            }
            long acquiredAt = killAt + acquiredAfterKill(api, front, nodes, killWall);
            phases.record(killAt + left, acquiredAt, acknowledgedAt);
            raw.add(acknowledgedAt - killAt);
            beyond.add(acknowledgedAt - killAt - left);
            remaining.add(left);
            if (k > warmup) {
                refusedTotal += refused;
            }
            System.err.printf("nginx-failover %d: killed %s, lease left %.0f ms, writes back after %.0f ms"
                    + " (%.0f ms beyond the lease), %d refused%n", k, leaderId, left / 1e6,
                    (acknowledgedAt - killAt) / 1e6, (acknowledgedAt - killAt - left) / 1e6, refused);
            leader.awaitExit(10);
            nodes.set(slot, leader.restart());
        }
        LatencyReport report = new LatencyReport()
                .add("kill -> write acknowledged via nginx", raw.summary(), "what a client sees (the goal)")
                .add("... beyond the lease left at kill", beyond.summary(),
                        "election + first leader-only write + nginx finding the leader")
                .add("lease left at kill", remaining.summary(), "read from Redis just before the kill");
        out.println(report.table());
        out.println("Where the time beyond the lease goes (lease expiry = kill + lease left; the middle instant is the"
                + " new leader's `leadership-acquired` JSON line, a millisecond wall-clock stamp from the same"
                + " machine, so each phase is good to about 1 ms):");
        out.println();
        out.println(phases.table());
        out.println("Writes refused while no leader was known: " + refusedTotal + " over " + n
                + " kills, by status: " + refusals + " (the shipped file answers 503 both when every node"
                + " said no leader and when the last node tried was the dead one).");
        out.println();
    }

    /**
     * When, after the kill, the new leader printed its {@code leadership-acquired} line: the leader and term come from
     * {@code GET /cluster/leader} through nginx, the line from that node's log.
     */
    private static long acquiredAfterKill(NodeApi api, NginxFront front, List<HttpNode> nodes, Instant killWall)
            throws IOException, InterruptedException {
        JsonNode leader = api.getJson(front.url().resolve("/cluster/leader"))
                .orElseThrow(() -> new IllegalStateException("no leader right after a write was acknowledged"));
        String id = leader.path("leader_id").asText();
        long term = leader.path("term").asLong();
        Path log = nodes.get(indexOf(nodes, id)).log();
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            if (!line.startsWith("{") || !line.contains("\"leadership-acquired\"")) {
                continue;
            }
            JsonNode event = JSON.readTree(line);
            if (event.path("term").asLong() == term) {
                return Duration.between(killWall, Instant.parse(event.path("ts").asText())).toNanos();
            }
        }
        throw new IllegalStateException("no leadership-acquired line for term " + term + " in " + log);
    }

    private static int indexOf(List<HttpNode> nodes, String name) {
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new IllegalStateException("leader " + name + " is not one of the benchmark's nodes");
    }

    private static String nginxVersion(Path nginx) {
        try {
            Process process = new ProcessBuilder(nginx.toString(), "-v").redirectErrorStream(true).start();
            String text = new String(process.getInputStream().readAllBytes()).trim();
            process.waitFor(5, TimeUnit.SECONDS);
            return text.replace("nginx version: ", "");
        } catch (IOException e) {
            return "nginx";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "nginx";
        }
    }
}

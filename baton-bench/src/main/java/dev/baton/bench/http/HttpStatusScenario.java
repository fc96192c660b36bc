package dev.baton.bench.http;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Summary;
import dev.baton.bench.support.Environment;
import dev.baton.testkit.RedisServer;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Issue 4's state-query goal (the seed promises state queries under 10 ms): {@code GET /cluster/status} of one
 * follower in a three-node cluster of the shipped jar on a private Redis, at a fixed 1,000 requests per second,
 * p99 <= 10 ms. Measured with an open-loop client in the JDK ({@link OpenLoopLoad}, the verdict); where {@code wrk}
 * is installed, also with wrk paced to about the same rate and with wrk flat out for the throughput ceiling.
 * {@code --n} is the seconds of each measured run (default 20), {@code --warmup} the seconds of load before it
 * (default 10, discarded: the JIT of both the node and the client).
 */
public final class HttpStatusScenario implements Scenario {

    private static final String GROUP = "bench-http-status";
    private static final int RATE = 1_000;
    private static final long GOAL_P99_NANOS = Duration.ofMillis(10).toNanos();
    private static final int OPEN_LOOP_CONNECTIONS = 16;
    private static final int PACED_CONNECTIONS = 10;
    private static final int FLAT_OUT_THREADS = 2;
    private static final int FLAT_OUT_CONNECTIONS = 16;

    @Override
    public String name() {
        return "http-status";
    }

    @Override
    public String description() {
        return "GET /cluster/status at 1,000 req/s (open loop in the JDK; plus wrk if installed): p99 vs the 10 ms goal";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        out.println("## GET /cluster/status under load");
        out.println();
        Optional<Path> jar = HttpNode.jar();
        if (jar.isEmpty()) {
            String why = HttpNode.DEFAULT_JAR + " not found (build it: ./mvnw -pl baton-server -am package"
                    + " -DskipTests, or pass -Dbaton.jar=...)";
            out.println("Skipped: " + why + ".");
            out.println();
            System.err.println("http-status skipped: " + why);
            return;
        }
        Duration measured = Duration.ofSeconds(options.n(20));
        Duration warmup = Duration.ofSeconds(options.warmup(10));
        Optional<Path> wrk = WrkLoad.executable();
        Path work = Files.createTempDirectory("baton-bench-http-");
        List<HttpNode> nodes = new ArrayList<>();
        NodeApi api = new NodeApi();
        boolean completed = false;
        try (RedisServer redis = RedisServer.start()) {
            for (int i = 1; i <= 3; i++) {
                nodes.add(HttpNode.start(jar.get(), "node-" + i, redis.uri(), GROUP, NodeApi.freePort(), work));
            }
            String leader = api.awaitAgreedLeader(nodes, 60);
            HttpNode follower = nodes.stream().filter(node -> !node.name().equals(leader)).findFirst().orElseThrow();
            URI status = follower.url().resolve("/cluster/status");
            int bytes = api.getJson(status).map(json -> json.toString().length()).orElse(0);

            out.println(Environment.machine() + ". Private redis-server on " + redis.uri() + "; 3 `java -jar"
                    + " baton.jar node --profile fast --http ...` processes (default JVM options); the target is the"
                    + " follower " + follower.name() + " (" + status + ", about " + bytes + " bytes of JSON with 3"
                    + " members). Load generator on the same machine. Each run: " + warmup.toSeconds()
                    + " s of warm-up load, then " + measured.toSeconds() + " s measured.");
            out.println();

            OpenLoopLoad.Result open = OpenLoopLoad.run(status, RATE, OPEN_LOOP_CONNECTIONS, warmup, measured);
            System.err.printf("http-status open loop: %.0f req/s, p99 %.2f ms%n", open.achievedPerSecond(),
                    open.latency().p99() / 1e6);
            MarkdownTable table = new MarkdownTable("driver", "req/s", "requests", "failed", "p50 ms", "p90 ms",
                    "p99 ms", "max ms", "mean ms", "notes");
            row(table, "open loop, 1,000/s, " + OPEN_LOOP_CONNECTIONS + " connections", open.achievedPerSecond(), open.ok() + open.failed(),
                    open.failed(), open.latency(), "latency from when each request was due (the verdict)");
            row(table, "... of which the sender was late", open.achievedPerSecond(), open.ok() + open.failed(), 0,
                    open.senderLag(), "due -> handed to the client: the load generator's own stalls");
            if (wrk.isPresent()) {
                WrkLoad.run(wrk.get(), status, 1, PACED_CONNECTIONS, warmup, (double) RATE / PACED_CONNECTIONS,
                        work);
                WrkLoad.Result paced = WrkLoad.run(wrk.get(), status, 1, PACED_CONNECTIONS, measured,
                        (double) RATE / PACED_CONNECTIONS, work);
                row(table, "wrk, " + PACED_CONNECTIONS + " connections paced to ~1,000/s", paced.perSecond(),
                        paced.requests(), paced.errors() + paced.non2xx(), paced.latency(),
                        "closed loop, " + 1000 / (RATE / PACED_CONNECTIONS) + " ms delay per connection");
                WrkLoad.Result flatOut = WrkLoad.run(wrk.get(), status, FLAT_OUT_THREADS, FLAT_OUT_CONNECTIONS,
                        measured, 0, work);
                row(table, "wrk, " + FLAT_OUT_THREADS + " threads, " + FLAT_OUT_CONNECTIONS + " connections, flat out",
                        flatOut.perSecond(), flatOut.requests(), flatOut.errors() + flatOut.non2xx(),
                        flatOut.latency(), "throughput ceiling; latency here is mostly queueing");
                System.err.printf("http-status wrk flat out: %.0f req/s%n", flatOut.perSecond());
            }
            out.println(table.render());
            boolean met = open.latency().p99() <= GOAL_P99_NANOS && open.failed() == 0;
            out.println("Goal p99 <= 10 ms at 1,000 req/s: " + (met ? "met" : "missed") + " (open-loop p99 "
                    + MarkdownTable.millis(open.latency().p99()) + " ms, " + open.failed() + " failed)."
                    + (wrk.isPresent() ? " " + WrkLoad.version(wrk.get()) + "." : " wrk not installed: the JDK"
                    + " open-loop client only."));
            out.println();
            completed = true;
        } finally {
            for (HttpNode node : nodes) {
                node.stop();
            }
            WorkDirectory.removeOrReport(work, completed, "http-status");
        }
        out.flush();
    }

    private static void row(MarkdownTable table, String driver, double perSecond, long requests, long failed,
            Summary s, String note) {
        table.row(driver, String.format(Locale.ROOT, "%.0f", perSecond), String.valueOf(requests),
                String.valueOf(failed), MarkdownTable.millis(s.p50()), MarkdownTable.millis(s.p90()),
                MarkdownTable.millis(s.p99()), MarkdownTable.millis(s.max()), MarkdownTable.millis(s.mean()), note);
    }
}

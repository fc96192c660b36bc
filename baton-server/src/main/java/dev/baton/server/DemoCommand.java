package dev.baton.server;

import dev.baton.core.ElectionConfig;
import dev.baton.core.store.Lease;
import dev.baton.testkit.RedisServer;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton demo}: shows, on a laptop with nothing but a JDK, what Baton promises. It starts a private Redis and
 * three {@code baton node} processes, shows who leads, kills the leader with SIGKILL, and measures how long the group
 * was without a leader next to how much lease time the dead leader still had: a crash failover costs the remaining
 * lease and little more, because followers wake at the expiry they read instead of polling. Then it stops the new
 * leader gracefully to show that a released lease is handed on at once.
 *
 * <p>The narrative goes to stdout; the nodes' JSON lines are read, not shown. Everything started is stopped before
 * the command returns, also when it fails.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        header = "Shows a leader failover: a private Redis, 3 nodes, SIGKILL of the leader.",
        description = "Shows a failover: starts a private Redis and 3 nodes, kills the leader with SIGKILL and "
                + "measures the failover against the lease time the dead leader had left, then stops the new leader "
                + "with SIGTERM to show a graceful handover. Stops everything it started and exits 0.")
final class DemoCommand implements Callable<Integer> {

    private static final String GROUP = "baton-demo";

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "3",
            description = "How many node processes to start, at least 3 (default: ${DEFAULT-VALUE}).")
    int nodeCount;

    @Option(names = "--timeout", paramLabel = "DUR", defaultValue = "30s", converter = DurationConverter.class,
            description = "The longest the demo waits for any one step (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private PrintWriter out;

    @Override
    public Integer call() {
        if (nodeCount < 3) {
            throw CliError.usage("--nodes must be at least 3 (one to kill, one to stop, one to take over), was "
                    + nodeCount);
        }
        out = spec.commandLine().getOut();
        try (DemoCluster cluster = new DemoCluster(GROUP, timeout)) {
            run(cluster);
            say("Stopping the remaining nodes and Redis.");
        }
        say("Done.");
        return BatonCli.EXIT_OK;
    }

    private void run(DemoCluster cluster) {
        ElectionConfig fast = ElectionConfig.fast();
        say("Starting a private Redis server ...");
        RedisServer redis = cluster.startRedis();
        say("Redis is listening on %s (pid %d).", redis.uri(), redis.pid());
        say("Starting %d nodes in group '%s' with the fast profile (lease TTL %s, renewed every %s) ...",
                nodeCount, GROUP, millis(fast.leaseTtl()), millis(fast.renewInterval()));
        List<DemoNode> nodes = new ArrayList<>();
        for (int i = 1; i <= nodeCount; i++) {
            DemoNode node = cluster.startNode("node-" + i);
            nodes.add(node);
            say("  %s started, pid %d", node.name(), node.pid());
        }

        DemoNode.Line first = cluster.await("a first leader was elected", line -> isAcquired(line));
        DemoNode leader = first.from();
        say("%s leads with term %d.", leader.name(), term(first));
        awaitFollowers(cluster, nodes, leader);

        DemoNode successor = killAndFailOver(cluster, leader);
        handOver(cluster, successor);
    }

    /** Waits until every other node has reported the leader, so the kill hits a settled group. */
    private void awaitFollowers(DemoCluster cluster, List<DemoNode> nodes, DemoNode leader) {
        List<DemoNode> followers = nodes.stream().filter(node -> node != leader).toList();
        cluster.awaitState("every node saw " + leader.name() + " as leader", () -> followers.stream()
                .allMatch(node -> leader.name().equals(cluster.leaderSeenBy(node))));
        say("%s follow%s %s.", followers.stream().map(DemoNode::name).collect(Collectors.joining(" and ")),
                followers.size() == 1 ? "s" : "", leader.name());
    }

    private DemoNode killAndFailOver(DemoCluster cluster, DemoNode leader) {
        cluster.lease(); // a first read warms the connection up, so the measured one is a plain round trip
        long readSent = System.nanoTime();
        Optional<Lease> lease = cluster.lease();
        long readDone = System.nanoTime();
        if (lease.isEmpty() || !lease.get().owner().equals(leader.name())) {
            throw CliError.failure("demo: Redis does not show " + leader.name() + " holding the lease, but "
                    + lease.map(Lease::owner).orElse("no one"));
        }
        cluster.expectExit(leader);
        long killedAt = System.nanoTime();
        leader.kill();
        // Redis measured the remaining time somewhere within the round trip; assume its middle, and say how exact
        // that is.
        long replyAt = readSent + (readDone - readSent) / 2;
        long leftMs = TimeUnit.NANOSECONDS.toMillis(lease.get().remaining().toNanos() - (killedAt - replyAt));
        long accuracyMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(readDone - readSent) / 2);
        say("Killing leader %s (pid %d) with SIGKILL; its lease had %,d ms left (read from Redis just before, "
                + "to within %d ms).", leader.name(), leader.pid(), leftMs, accuracyMs);

        DemoNode.Line taken = cluster.await("another node took over after the kill",
                line -> isAcquired(line) && line.from() != leader);
        long failoverMs = TimeUnit.NANOSECONDS.toMillis(taken.receivedNanos() - killedAt);
        say("%s took over with term %d, %,d ms after the kill.", taken.from().name(), term(taken), failoverMs);
        long extraMs = failoverMs - leftMs;
        if (extraMs >= 0) {
            say("Failover %,d ms = lease left at the kill %,d ms + %,d ms to notice the expiry and take the lease.",
                    failoverMs, leftMs, extraMs);
        } else {
            say("Failover %,d ms = the lease left at the kill, %,d ms (equal within the read's accuracy).",
                    failoverMs, leftMs);
        }
        return taken.from();
    }

    private void handOver(DemoCluster cluster, DemoNode leader) {
        cluster.expectExit(leader);
        long stoppedAt = System.nanoTime();
        leader.terminate();
        say("Stopping leader %s (pid %d) with SIGTERM: it releases its lease on the way out.", leader.name(),
                leader.pid());
        DemoNode.Line taken = cluster.await("another node took over after the release",
                line -> isAcquired(line) && line.from() != leader);
        say("%s took over with term %d, %s after the signal (graceful handover, no waiting for expiry).",
                taken.from().name(), term(taken), millis(Duration.ofNanos(taken.receivedNanos() - stoppedAt)));
        int exit = leader.awaitExit(timeout);
        if (exit != 0) {
            throw CliError.failure("demo: " + leader + " exited with " + (exit < 0 ? "no exit yet" : "code " + exit)
                    + " after SIGTERM instead of 0");
        }
    }

    private static boolean isAcquired(DemoNode.Line line) {
        return line.event().equals("leadership-acquired");
    }

    private static long term(DemoNode.Line line) {
        return line.json().path("term").asLong();
    }

    private static String millis(Duration duration) {
        return String.format("%,d ms", duration.toMillis());
    }

    private void say(String format, Object... args) {
        out.println(args.length == 0 ? format : String.format(format, args));
        out.flush();
    }
}

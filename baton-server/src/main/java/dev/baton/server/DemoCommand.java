package dev.baton.server;

import dev.baton.peer.bully.BullyConfig;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.transport.PeerAddress;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton demo}: shows, on a laptop with nothing but a JDK, what Baton promises, with no server of any kind. It
 * starts three {@code baton node --backend quorum} processes on loopback that elect a leader among themselves (seed
 * 003's quorum protocol), shows who leads under which term, kills the leader with SIGKILL, and shows the survivors
 * electing a successor under a higher term and removing the dead node from the member list.
 *
 * <p>{@code --backend bully} runs the same story on seed 004's bully protocol: the nodes start one after the other,
 * the first finds no leader in the leader record file and founds the group as process 1, the others read the record
 * and join, the highest process id takes over after the hold-down, and after the SIGKILL the highest survivor does.
 *
 * <p>The narrative goes to stdout; the nodes' JSON lines are read, not shown. Everything started is stopped, and the
 * temporary data directories are deleted, before the command returns, also when it fails (a failure keeps the logs).
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        header = "Shows a leader failover with no server: 3 quorum nodes on loopback, SIGKILL of the leader.",
        description = "Shows a failover with nothing installed: starts 3 'baton node --backend quorum' processes on "
                + "free loopback ports (fast profile, temporary data directories), waits until they elect a leader, "
                + "kills the leader with SIGKILL, shows the new leader with its higher term and the dead node's "
                + "removal, then stops everything, deletes the data directories and exits 0. With --backend bully the "
                + "nodes run seed 004's bully protocol with a leader record file instead.")
final class DemoCommand implements Callable<Integer> {

    private static final String GROUP = "baton-demo";

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "3",
            description = "How many node processes to start, at least 3 on quorum, so that a majority survives the "
                    + "kill, at least 2 on bully (default: ${DEFAULT-VALUE}).")
    int nodeCount;

    @Option(names = "--backend", paramLabel = "quorum|bully", defaultValue = "quorum",
            description = "The serverless protocol: quorum (the seed-node quorum protocol, the default; peer is its "
                    + "old name) or bully (the bully election, with a leader record file).")
    String backend;

    @Option(names = "--timeout", paramLabel = "DUR", defaultValue = "30s", converter = DurationConverter.class,
            description = "The longest the demo waits for any one step (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private PrintWriter out;

    @Override
    public Integer call() {
        boolean bully = backend.strip().equalsIgnoreCase(Backends.BULLY);
        if (!bully && !Backends.isQuorum(backend)) {
            throw CliError.usage("--backend must be quorum or bully, was '" + backend + "'");
        }
        if (!bully && nodeCount < 3) {
            throw CliError.usage("--nodes must be at least 3 (a majority must survive the leader's kill), was "
                    + nodeCount);
        }
        if (bully && nodeCount < 2) {
            throw CliError.usage("--nodes must be at least 2 (one must survive the leader's kill), was " + nodeCount);
        }
        out = spec.commandLine().getOut();
        try (DemoCluster cluster = new DemoCluster(GROUP, timeout)) {
            if (bully) {
                runBully(cluster);
            } else {
                run(cluster);
            }
            say("Stopping the remaining nodes (SIGTERM: each leaves the cluster) and deleting their data directories.");
        }
        say("Done.");
        return BatonCli.EXIT_OK;
    }

    private void run(DemoCluster cluster) {
        List<String> addresses = DemoCluster.freeAddresses(nodeCount);
        QuorumConfig fast = QuorumConfig.fast().clusterSize(nodeCount)
                .seeds(addresses.stream().map(PeerAddress::parse).toList()).build();
        say("Starting %d nodes of cluster '%s' on loopback with no server of any kind: they elect their leader "
                + "among themselves (a majority of %d must agree).", nodeCount, GROUP, fast.majority());
        say("Fast profile: keep-alives every %s; a leader not heard for %s is replaced.",
                millis(fast.heartbeatInterval()), millis(fast.ttlTimeout()));
        List<DemoNode> nodes = cluster.startNodes(addresses);
        for (DemoNode node : nodes) {
            say("  %s listens for its peers on %s, pid %d", node.name(), node.id(), node.pid());
        }

        DemoNode.Line first = cluster.await("a first leader was elected", DemoCommand::isAcquired);
        DemoNode leader = first.from();
        long firstTerm = term(first);
        say("%s leads with term %d (the term is the fencing token: it only ever grows).", leader.name(), firstTerm);
        List<DemoNode> followers = nodes.stream().filter(node -> node != leader).toList();
        cluster.awaitState("every node saw " + leader.name() + " as leader", () -> followers.stream()
                .allMatch(node -> leader.id().equals(cluster.leaderSeenBy(node))));
        say("%s follow%s %s.", DemoCluster.names(followers), followers.size() == 1 ? "s" : "", leader.name());

        killAndFailOver(cluster, leader, firstTerm, "the followers missed the leader's keep-alive "
                + "acknowledgements, checked with a majority that it was gone, and elected a successor");
    }

    private void runBully(DemoCluster cluster) {
        List<String> addresses = DemoCluster.freeAddresses(nodeCount);
        BullyConfig fast = BullyConfig.fast().build();
        say("Starting %d nodes of group '%s' on loopback with the bully protocol and no server: the leader record "
                + "lives in the file %s, where a starting node looks up whom to join.", nodeCount, GROUP,
                cluster.leaderStoreFile());
        say("Fast profile: every node pings every other every %s; a leader that misses %d pings and an indirect probe "
                + "is replaced by the highest process id left; a higher process takes over from a healthy leader only "
                + "after a hold-down of %s.", millis(fast.pingInterval()), fast.suspectAfter(),
                millis(fast.holdDown()));
        DemoNode founder = cluster.startBullyNode("node-1", addresses.get(0));
        say("  %s listens for its peers on %s, pid %d", founder.name(), founder.id(), founder.pid());
        DemoNode.Line founded = cluster.await(founder.name() + " founded the group", DemoCommand::isAcquired);
        say("%s found no leader in the file, founded the group as process 1 and wrote itself in with term %d.",
                founder.name(), term(founded));
        DemoNode last = founder;
        for (int i = 1; i < nodeCount; i++) {
            DemoNode node = cluster.startBullyNode("node-" + (i + 1), addresses.get(i));
            say("  %s listens for its peers on %s, pid %d", node.name(), node.id(), node.pid());
            DemoNode.Line joined = cluster.await(node.name() + " joined the group", line ->
                    line.event().equals("member-joined") && node.id().equals(line.json().path("member").asText()));
            say("%s read the leader from the file and joined; the leader gave it process id %d.", node.name(),
                    joined.json().path("processId").asLong());
            last = node;
        }
        DemoNode highest = last;
        DemoNode.Line takeover = cluster.await(highest.name() + " took over after the hold-down",
                line -> isAcquired(line) && line.from() == highest);
        long term = term(takeover);
        say("%s holds the highest process id: after the hold-down it took over with term %d (terms come from the "
                + "file by compare-and-set: each is given once, and they only grow).", highest.name(), term);
        List<DemoNode> followers = cluster.nodes().stream().filter(node -> node != highest).toList();
        cluster.awaitState("every node saw " + highest.name() + " as leader", () -> followers.stream()
                .allMatch(node -> highest.id().equals(cluster.leaderSeenBy(node))));
        say("%s follow%s %s.", DemoCluster.names(followers), followers.size() == 1 ? "s" : "", highest.name());

        killAndFailOver(cluster, highest, term, "the others stopped getting answers to their pings, confirmed "
                + "the failure through another member, and the highest process left took the next term from the file");
    }

    private void killAndFailOver(DemoCluster cluster, DemoNode leader, long firstTerm, String how) {
        cluster.expectExit(leader);
        long killedAt = System.nanoTime();
        leader.kill();
        say("Killing leader %s (pid %d) with SIGKILL: it cannot hand over, the others only notice its silence.",
                leader.name(), leader.pid());

        DemoNode.Line taken = cluster.await("another node took over after the kill",
                line -> isAcquired(line) && line.from() != leader);
        long failoverMs = sinceMs(killedAt, taken);
        long newTerm = term(taken);
        if (newTerm <= firstTerm) {
            throw CliError.failure("demo: " + taken.from().name() + " took over with term " + newTerm
                    + ", not above the dead leader's " + firstTerm);
        }
        say("%s took over with term %d, %,d ms after the kill: %s.", taken.from().name(), newTerm, failoverMs, how);

        DemoNode successor = taken.from();
        long[] unreachableMs = {-1};
        DemoNode.Line removed = cluster.await(successor.name() + " removed " + leader.name() + " from the members",
                line -> {
                    boolean aboutDeadLeader = line.from() == successor
                            && leader.id().equals(line.json().path("member").asText());
                    if (aboutDeadLeader && line.event().equals("member-state-changed")
                            && line.json().path("to").asText().equals("UNREACHABLE")) {
                        unreachableMs[0] = sinceMs(killedAt, line);
                    }
                    return aboutDeadLeader && line.event().equals("member-removed");
                });
        if (unreachableMs[0] >= 0) {
            say("%s marked %s unreachable %,d ms after the kill (silent, and an indirect probe through another "
                    + "member failed too), and removed it from the members at %,d ms.", successor.name(),
                    leader.name(), unreachableMs[0], sinceMs(killedAt, removed));
        } else {
            say("%s removed %s from the members %,d ms after the kill.", successor.name(), leader.name(),
                    sinceMs(killedAt, removed));
        }
    }

    private static boolean isAcquired(DemoNode.Line line) {
        return line.event().equals("leadership-acquired");
    }

    private static long term(DemoNode.Line line) {
        return line.json().path("term").asLong();
    }

    private static long sinceMs(long startNanos, DemoNode.Line line) {
        return TimeUnit.NANOSECONDS.toMillis(line.receivedNanos() - startNanos);
    }

    private static String millis(Duration duration) {
        return String.format("%,d ms", duration.toMillis());
    }

    private void say(String format, Object... args) {
        out.println(args.length == 0 ? format : String.format(format, args));
        out.flush();
    }
}

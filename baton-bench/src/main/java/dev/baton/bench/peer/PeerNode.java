package dev.baton.bench.peer;

import dev.baton.core.Election;
import dev.baton.core.ElectionEvent;
import dev.baton.core.MemberState;
import dev.baton.core.NodeInfo;
import dev.baton.peer.bully.Bully;
import dev.baton.peer.bully.BullyConfig;
import dev.baton.peer.bully.BullyElection;
import dev.baton.peer.bully.FileLeaderStore;
import dev.baton.peer.quorum.Quorum;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.quorum.QuorumElection;
import dev.baton.peer.transport.PeerAddress;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One quorum node in its own JVM, for the {@code peer-failover} scenario: {@code java -cp baton-bench.jar
 * dev.baton.bench.peer.PeerNode <listen host:port> <seed,seed,...> <cluster size> <data dir> <group>}. Runs
 * {@link Quorum#tcp(PeerAddress)} with {@link QuorumConfig#fast()} on the given data directory, so a restart on the
 * same arguments is a restart from saved state. With {@code bully <listen host:port> <leader store file> <group>} it
 * runs a bully node instead ({@link Bully#tcp(PeerAddress)}, {@link BullyConfig#fast()}, a {@link FileLeaderStore}),
 * for the {@code bully-failover} scenario.
 *
 * <p>Prints one line per event on stdout, each with the listener's {@link System#nanoTime()} (CLOCK_MONOTONIC on
 * Linux: one clock for every process on the machine, so the parent can compare it with its own readings):
 * {@code node <id>}, {@code ready} once it follows or leads, {@code started <nanos>} when an election round opens,
 * {@code leader <id|-> <term> <nanos>} when the leader it follows changes, {@code acquired <term> <nanos>},
 * {@code lost <term> <nanos>}, and, on the leader, {@code active <count> <nanos>} after it acquires and after every
 * member event. Runs until its stdin closes, then closes the election and exits; the scenario normally ends it with
 * SIGKILL.
 */
public final class PeerNode {

    private PeerNode() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 4 && args[0].equals("bully")) {
            PeerAddress listen = PeerAddress.parse(args[1]);
            try (FileLeaderStore store = new FileLeaderStore(Path.of(args[2]));
                 BullyElection election = Bully.tcp(listen).group(args[3]).config(BullyConfig.fast().build())
                         .leaderStore(store).node(NodeInfo.of("ignored", "bully-" + listen.port())).build()) {
                run(election);
            }
            return;
        }
        if (args.length != 5) {
            System.err.println("usage: PeerNode <listen host:port> <seed,seed,...> <cluster size> <data dir> <group>"
                    + "\n       PeerNode bully <listen host:port> <leader store file> <group>");
            System.exit(2);
        }
        PeerAddress listen = PeerAddress.parse(args[0]);
        List<PeerAddress> seeds = new ArrayList<>();
        for (String seed : args[1].split(",")) {
            seeds.add(PeerAddress.parse(seed));
        }
        QuorumConfig config = QuorumConfig.fast().clusterSize(Integer.parseInt(args[2])).seeds(seeds).build();
        try (QuorumElection election = Quorum.tcp(listen).group(args[4]).config(config)
                .node(NodeInfo.of("ignored", "peer-" + listen.port())).dataDir(Path.of(args[3])).build()) {
            run(election);
        }
    }

    /** Prints the election's events as lines, starts it, and runs until stdin closes. */
    private static void run(Election election) throws Exception {
        PrintStream out = System.out;
        election.addListener(event -> {
            long now = System.nanoTime();
            if (event instanceof ElectionEvent.LeadershipAcquired acquired) {
                print(out, "acquired " + acquired.leadership().term() + " " + now);
                printActive(election, out);
            } else if (event instanceof ElectionEvent.LeadershipLost lost) {
                print(out, "lost " + lost.term() + " " + now);
            } else if (event instanceof ElectionEvent.ElectionStarted) {
                print(out, "started " + now);
            } else if (event instanceof ElectionEvent.LeaderChanged changed) {
                print(out, "leader " + changed.leader().map(l -> l.nodeId() + " " + l.term()).orElse("- 0")
                        + " " + now);
            } else if (event instanceof ElectionEvent.MemberJoined
                    || event instanceof ElectionEvent.MemberStateChanged
                    || event instanceof ElectionEvent.MemberRemoved) {
                printActive(election, out);
            }
        });
        print(out, "node " + election.nodeId());
        election.start();
        election.awaitElected(Duration.ofSeconds(60));
        print(out, "ready");
        waitForStdinToClose();
    }

    /** On the leader: how many members its table has ACTIVE, read on the election's own thread. */
    private static void printActive(Election election, PrintStream out) {
        election.status().thenAccept(status -> {
            if (status.isLeader()) {
                long active = status.members().stream().filter(m -> m.state() == MemberState.ACTIVE).count();
                print(out, "active " + active + " " + System.nanoTime());
            }
        });
    }

    private static void print(PrintStream out, String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }

    private static void waitForStdinToClose() {
        try {
            while (System.in.read() != -1) {
                // Input is ignored; end of input means the parent wants this node gone.
            }
        } catch (IOException e) {
            // The parent's end of the pipe is gone: same as end of input.
        }
    }
}

package dev.baton.bench.failover;

import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.support.TracingStore;
import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.NodeInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;

/**
 * One election in its own JVM, for the crash-failover scenario: {@code java -cp baton-bench.jar
 * dev.baton.bench.failover.BenchNode <store-uri> <group> <identifier>}, where the store URI is {@code redis://…} or
 * {@code postgresql://…} and picks the backend.
 *
 * <p>Runs one Baton election with {@link ElectionConfig#fast()} and prints, on stdout, {@code node <id>} at start,
 * {@code ready} once the first round resolved, and {@code acquired <term> <nanoTime> <sent> <granted>} from every
 * {@code LeadershipAcquired} listener call (default event thread): the listener's {@code nanoTime} taken first thing,
 * then when the granted acquire was sent and when its reply arrived (from a {@link TracingStore}), and
 * {@code renewed <sent> <granted>} for every renewal the store granted. {@link System#nanoTime()} is
 * {@code CLOCK_MONOTONIC} on Linux, one clock for every process on the machine, so the parent can subtract its own
 * readings from these. Runs until its stdin closes (the parent is gone or done), then closes the election and exits;
 * the scenario normally ends it with SIGKILL.
 */
public final class BenchNode {

    private BenchNode() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: BenchNode <redis://…|postgresql://…> <group> <identifier>");
            System.exit(2);
        }
        PrintStream out = System.out;
        try (TracingStore store = new TracingStore(BenchBackend.connect(args[0]));
             Election election = Baton.election(store).group(args[1]).node(NodeInfo.create(args[2]))
                     .config(ElectionConfig.fast()).build()) {
            store.onRenewed((sent, granted) -> {
                synchronized (out) {
                    out.println("renewed " + sent + " " + granted);
                    out.flush();
                }
            });
            election.addListener(event -> {
                if (event instanceof ElectionEvent.LeadershipAcquired acquired) {
                    long now = System.nanoTime();
                    synchronized (out) {
                        out.println("acquired " + acquired.term() + " " + now + " " + store.acquireCalled() + " "
                                + store.acquireGranted());
                        out.flush();
                    }
                }
            });
            synchronized (out) {
                out.println("node " + election.nodeId());
                out.flush();
            }
            election.start();
            election.awaitElected(Duration.ofSeconds(10));
            synchronized (out) {
                out.println("ready");
                out.flush();
            }
            waitForStdinToClose();
        }
    }

    /** Blocks until stdin closes: how a child JVM of the benchmarks learns that its parent wants it gone. */
    public static void waitForStdinToClose() {
        try {
            while (System.in.read() != -1) {
                // Input is ignored; end of input means the parent wants this node gone.
            }
        } catch (IOException e) {
            // The parent's end of the pipe is gone: same as end of input.
        }
    }
}

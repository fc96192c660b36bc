package dev.baton.bench.scale;

import dev.baton.bench.failover.BenchNode;
import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The process the scale scenario kills: {@code java -cp baton-bench.jar dev.baton.bench.scale.ScaleHolder <system>
 * <uri> <prefix> <n>} leads groups {@code prefix0 … prefix(n-1)} of one system, prints {@code node holder}, then
 * {@code ready} once it leads all of them, and holds them until its stdin closes (it gives them up then) or it is
 * killed.
 */
public final class ScaleHolder {

    private static final long LEAD_TIMEOUT_SECONDS = 180;

    private ScaleHolder() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: ScaleHolder <system> <store-uri> <group-prefix> <groups>");
            System.exit(2);
        }
        int n = Integer.parseInt(args[3]);
        PrintStream out = System.out;
        try (GroupClient client = ScaleSystem.parse(args[0]).connect(args[1], n)) {
            GroupSet groups = client.open(args[2], n, "holder");
            out.println("node holder");
            out.flush();
            CompletableFuture.allOf(groups.start().toArray(CompletableFuture[]::new))
                    .get(LEAD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            out.println("ready");
            out.flush();
            BenchNode.waitForStdinToClose();
            groups.closeAll().get(LEAD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
    }
}

package dev.baton.bench.handover;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.support.Calibration;
import dev.baton.bench.support.Environment;
import dev.baton.bench.support.RedisAdmin;
import dev.baton.testkit.RedisServer;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Scenario 1, graceful handover: the leader releases, the next leader's callback fires. Baton (several ways), the
 * hand-written SET NX + PUBLISH lock, Redisson's RLock and Curator's LeaderLatch run through the same harness, one
 * after the other, in one run; each pass prints a table and the ratios to Baton's {@code close()}.
 */
public final class HandoverScenario implements Scenario {

    /** The row every other candidate is compared with. */
    static final String BASELINE = "Baton close()";

    @Override
    public String name() {
        return "handover";
    }

    @Override
    public String description() {
        return "graceful handover: leader releases -> next leader's callback (Baton, SET NX, Redisson, Curator)";
    }

    /** Creates one candidate's contenders for a Redis URI and a group name unique to the pass. */
    @FunctionalInterface
    private interface Factory {
        Contenders create(String uri, String group);
    }

    /** Candidate key (as {@code --candidates} names it) -> factory, in the order the rows are shown. */
    private static Map<String, Factory> candidates(int warmup, int n) {
        Map<String, Factory> all = new LinkedHashMap<>();
        all.put("baton", (uri, g) -> new BatonContenders(uri, BatonContenders.Release.CLOSE, false, g, warmup, n));
        all.put("baton-direct",
                (uri, g) -> new BatonContenders(uri, BatonContenders.Release.CLOSE, true, g, warmup, n));
        all.put("baton-stepdown",
                (uri, g) -> new BatonContenders(uri, BatonContenders.Release.STEP_DOWN, false, g, warmup, n));
        all.put("setnx", SetNxContenders::new);
        all.put("redisson", RedissonContenders::new);
        all.put("curator", (uri, g) -> new CuratorContenders(g));
        return all;
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(200);
        int warmup = options.warmup(20);
        out.println("## Graceful handover");
        out.println();
        try (RedisServer redis = RedisServer.start(); RedisAdmin admin = RedisAdmin.connect(redis.uri())) {
            out.println(Environment.machine() + ". " + Environment.redis(admin, redis.uri()));
            out.println("n = " + n + " handovers per row after " + warmup + " warm-up handovers; 3 contenders, each on"
                    + " its own client; t0 just before the release call, t1 in the next leader's callback.");
            out.println();
            out.println("Calibration: what this machine charges for one round trip and one thread hand-off:");
            out.println();
            out.println(Calibration.table(admin, new Random(options.seed())));
            for (Pass pass : Pass.values()) {
                runPass(pass, redis.uri(), options, warmup, n, out);
            }
        }
    }

    private void runPass(Pass pass, String uri, BenchOptions options, int warmup, int n, PrintStream out)
            throws Exception {
        LatencyReport report = new LatencyReport();
        List<String> breakdowns = new ArrayList<>();
        int group = 0;
        for (Map.Entry<String, Factory> candidate : candidates(warmup, n).entrySet()) {
            if (!options.includes(candidate.getKey())) {
                continue;
            }
            String groupName = "bench-handover-" + pass.name().toLowerCase(java.util.Locale.ROOT) + "-" + (++group);
            try (Contenders contenders = candidate.getValue().create(uri, groupName)) {
                System.err.println("handover [" + pass.label() + "]: " + contenders.name() + " ...");
                LeaderSink sink = new LeaderSink();
                contenders.start(sink);
                HandoverHarness.Result result = new HandoverHarness(warmup, n)
                        .run(contenders, sink, pass, new Random(options.seed()));
                String note = contenders.note();
                if (result.selfReacquired() > 0) {
                    note += "; releaser re-acquired " + result.selfReacquired() + "× (not counted)";
                }
                if (result.failure() != null) {
                    note += "; STOPPED: " + result.failure();
                }
                if (result.samples().kept() > 0) {
                    report.add(contenders.name(), result.samples().summary(), note);
                } else {
                    out.println("- " + contenders.name() + ": no samples (" + note + ")");
                }
                contenders.breakdown().ifPresent(table -> breakdowns.add("Phases of **" + contenders.name()
                        + "** (" + pass.label() + "):\n\n" + table));
            }
        }
        out.println("### Handover, " + pass.label());
        out.println();
        out.println(report.table());
        String ratios = report.ratios(BASELINE);
        if (!ratios.isEmpty()) {
            out.println("Ratios (candidate / " + BASELINE + "; above 1× means slower than Baton):");
            out.println();
            out.println(ratios);
        }
        for (String breakdown : breakdowns) {
            out.println(breakdown);
        }
        out.flush();
    }
}

package dev.baton.bench.handover;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.backend.BackendKind;
import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.backend.PostgresBackend;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.SideBySide;
import dev.baton.bench.support.Calibration;
import dev.baton.bench.support.Environment;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Scenario 1, graceful handover: the leader releases, the next leader's callback fires. Baton (several ways) and the
 * backend's references run through the same harness, one after the other, in one run: on Redis the hand-written
 * SET NX + PUBLISH lock and Redisson's RLock, on PostgreSQL the server's own session advisory lock, and on both
 * Curator's LeaderLatch. Each pass prints a table and the ratios to Baton's {@code close()}; with several backends
 * ({@code --backend redis,postgres}) a side-by-side table of the same run follows.
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
        return "graceful handover: leader releases -> next leader's callback (Baton, SET NX, Redisson, Curator;"
                + " on postgres the advisory lock)";
    }

    /** Creates one candidate's contenders for a group name unique to the pass. */
    @FunctionalInterface
    private interface Factory {
        Contenders create(String group);
    }

    /**
     * Candidate key (as {@code --candidates} names it) -> factory, in the order the rows are shown: Baton's three
     * ways on every backend, then that backend's references.
     */
    private static Map<String, Factory> candidates(BenchBackend backend, int warmup, int n) {
        Map<String, Factory> all = new LinkedHashMap<>();
        all.put("baton", g -> new BatonContenders(backend, BatonContenders.Release.CLOSE, false, g, warmup, n));
        all.put("baton-direct", g -> new BatonContenders(backend, BatonContenders.Release.CLOSE, true, g, warmup, n));
        all.put("baton-stepdown",
                g -> new BatonContenders(backend, BatonContenders.Release.STEP_DOWN, false, g, warmup, n));
        if (backend.kind() == BackendKind.REDIS) {
            all.put("setnx", g -> new SetNxContenders(backend.uri(), g));
            all.put("redisson", g -> new RedissonContenders(backend.uri(), g));
        }
        if (backend instanceof PostgresBackend postgres) {
            all.put("advisory", g -> new AdvisoryLockContenders(postgres, g));
        }
        all.put("curator", CuratorContenders::new);
        return all;
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(200);
        int warmup = options.warmup(20);
        Map<Pass, SideBySide> sideBySide = new EnumMap<>(Pass.class);
        for (BackendKind kind : options.backends()) {
            out.println("## Graceful handover" + kind.headingSuffix());
            out.println();
            try (BenchBackend backend = BenchBackend.start(kind)) {
                out.println(Environment.machine() + ". " + backend.describe());
                out.println("n = " + n + " handovers per row after " + warmup + " warm-up handovers; 3 contenders,"
                        + " each on its own client; t0 just before the release call, t1 in the next leader's"
                        + " callback.");
                out.println();
                out.println("Calibration: what this machine charges for one round trip and one thread hand-off:");
                out.println();
                out.println(Calibration.table(backend, new Random(options.seed())));
                for (Pass pass : Pass.values()) {
                    LatencyReport report = runPass(pass, backend, options, warmup, n, out);
                    sideBySide.computeIfAbsent(pass, p -> new SideBySide()).add(kind.label(), report);
                }
            }
        }
        if (options.backends().size() > 1) {
            for (Map.Entry<Pass, SideBySide> pass : sideBySide.entrySet()) {
                if (pass.getValue().isEmpty()) {
                    continue;
                }
                out.println("### Handover side by side, " + pass.getKey().label() + " (this run)");
                out.println();
                out.println(pass.getValue().table());
            }
        }
        out.flush();
    }

    private LatencyReport runPass(Pass pass, BenchBackend backend, BenchOptions options, int warmup, int n,
            PrintStream out) throws Exception {
        LatencyReport report = new LatencyReport();
        List<String> breakdowns = new ArrayList<>();
        int group = 0;
        for (Map.Entry<String, Factory> candidate : candidates(backend, warmup, n).entrySet()) {
            if (!options.includes(candidate.getKey())) {
                continue;
            }
            String groupName = "bench-handover-" + pass.name().toLowerCase(Locale.ROOT) + "-" + (++group);
            try (Contenders contenders = candidate.getValue().create(groupName)) {
                System.err.println("handover " + backend.kind().key() + " [" + pass.label() + "]: "
                        + contenders.name() + " ...");
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
                        + "**" + backend.kind().headingSuffix() + " (" + pass.label() + "):\n\n" + table));
            }
        }
        if (report.candidates().isEmpty()) {
            return report;
        }
        out.println("### Handover" + backend.kind().headingSuffix() + ", " + pass.label());
        out.println();
        out.println(report.table());
        String ratios = report.ratios(BASELINE);
        if (!ratios.isEmpty()) {
            out.println("Ratios (candidate / " + BASELINE + "; above 1× means slower than Baton):");
            out.println();
            out.println(ratios);
        }
        String toReference = report.ratios(AdvisoryLockContenders.NAME);
        if (!toReference.isEmpty()) {
            out.println("Ratios (candidate / " + AdvisoryLockContenders.NAME + ", the issue's reference; above 1×"
                    + " means slower than the advisory lock):");
            out.println();
            out.println(toReference);
        }
        for (String breakdown : breakdowns) {
            out.println(breakdown);
        }
        out.flush();
        return report;
    }
}

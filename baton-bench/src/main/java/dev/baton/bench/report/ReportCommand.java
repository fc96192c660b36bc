package dev.baton.bench.report;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.Findings;
import dev.baton.bench.stats.Summary;
import dev.baton.bench.support.Environment;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code java -jar baton-bench.jar report [--quick] [--write DIR] [--only id,id]}: runs every comparison scenario of
 * {@link ReportPlan} one after the other, prints their markdown on stdout as a single scenario would, and writes
 * {@code DIR/summary.md} (one row per goal: Baton, the peer measured in the same run, the ratio, the bound, met or
 * missed) and {@code DIR/charts/<run>.png} (the latency distribution of every candidate of each run). A run that fails
 * is reported as not measured; the others go on.
 */
public final class ReportCommand {

    private static final Pattern POSTGRES_VERSION = Pattern.compile("Private PostgreSQL (\\S+)");
    private static final Pattern REDIS_VERSION = Pattern.compile("Private redis-server (\\S+)");

    private final boolean quick;
    private final Path write;
    private final Set<String> only;

    private ReportCommand(boolean quick, Path write, Set<String> only) {
        this.quick = quick;
        this.write = write;
        this.only = only;
    }

    /**
     * Parses the command's options and runs it.
     *
     * @param scenarios every scenario by command-line name
     * @return the process exit code: 0, or 2 for bad options
     */
    public static int main(List<String> args, Map<String, Scenario> scenarios, PrintStream out) throws Exception {
        boolean quick = false;
        Path write = Path.of("docs", "benchmarks");
        Set<String> only = new LinkedHashSet<>();
        Set<String> known = new LinkedHashSet<>();
        ReportPlan.runs().forEach(r -> known.add(r.id()));
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            switch (arg) {
                case "--quick" -> quick = true;
                case "--write", "--only" -> {
                    if (i + 1 >= args.size()) {
                        System.err.println("option " + arg + " needs a value");
                        return 2;
                    }
                    String value = args.get(++i);
                    if (arg.equals("--write")) {
                        write = Path.of(value);
                    } else {
                        for (String id : value.split(",")) {
                            if (!known.contains(id.strip())) {
                                System.err.println("unknown run '" + id.strip() + "' (known: " + known + ")");
                                return 2;
                            }
                            only.add(id.strip());
                        }
                    }
                }
                default -> {
                    System.err.println("unknown option " + arg + " (known: --quick, --write DIR, --only id,id)");
                    return 2;
                }
            }
        }
        new ReportCommand(quick, write, only).run(scenarios, out);
        return 0;
    }

    private void run(Map<String, Scenario> scenarios, PrintStream out) throws Exception {
        System.setProperty("java.awt.headless", "true");
        Instant started = Instant.now();
        String machine = Environment.machine();
        Map<String, String> failures = new LinkedHashMap<>();
        Map<String, Double> seconds = new LinkedHashMap<>();
        List<ReportPlan.Run> runs = ReportPlan.runs().stream()
                .filter(r -> only.isEmpty() || only.contains(r.id())).toList();
        StringBuilder transcript = new StringBuilder();
        out.println("# Baton benchmarks: report" + (quick ? " --quick" : ""));
        out.println();
        out.println(machine + ".");
        out.println();
        try (Findings findings = Findings.open()) {
            for (ReportPlan.Run run : runs) {
                List<String> args = quick ? run.quick() : run.args();
                Scenario scenario = scenario(run, scenarios);
                System.err.println("report: " + run.id() + " (" + run.scenario() + " " + String.join(" ", args)
                        + ") ...");
                ByteArrayOutputStream copy = new ByteArrayOutputStream();
                SectionTracker tracker = new SectionTracker(new Tee(out, copy));
                PrintStream scenarioOut = new PrintStream(tracker, true, StandardCharsets.UTF_8);
                findings.beginRun(run.id(), tracker);
                long t0 = System.nanoTime();
                try {
                    if (scenario == null) {
                        throw new IllegalStateException("no scenario named " + run.scenario());
                    }
                    scenario.run(BenchOptions.parse(args), scenarioOut);
                } catch (Exception e) {
                    failures.put(run.id(), e.getClass().getSimpleName() + ": " + e.getMessage());
                    System.err.println("report: " + run.id() + " failed: " + e);
                } finally {
                    scenarioOut.flush();
                    seconds.put(run.id(), (System.nanoTime() - t0) / 1e9);
                }
                transcript.append(copy.toString(StandardCharsets.UTF_8));
                System.err.printf(Locale.ROOT, "report: %s finished in %.0f s%n", run.id(), seconds.get(run.id()));
            }
            Path charts = write.resolve("charts");
            Map<String, Path> drawn = new LinkedHashMap<>();
            for (ReportPlan.Run run : runs) {
                Map<String, Summary> curves = curves(findings.series(run.id()).stream()
                        .filter(series -> run.charts(series.section())).toList());
                Path png = charts.resolve(run.id() + ".png");
                if (CdfChart.write(run.title(), curves, png)) {
                    drawn.put(run.id(), png);
                }
            }
            String postgres = first(POSTGRES_VERSION, transcript);
            String redis = first(REDIS_VERSION, transcript);
            List<Goal.Row> rows = new ArrayList<>();
            for (Goal goal : ReportPlan.goals(postgres)) {
                rows.add(goal.evaluate(findings));
            }
            String summary = SummaryPage.render(new SummaryPage.Context(started, Instant.now(), machine,
                    Environment.machine(), quick, runs, seconds, failures, drawn.keySet(), redis, postgres), rows);
            Files.createDirectories(write);
            Files.writeString(write.resolve("summary.md"), summary);
            out.println(summary);
            System.err.println("report: wrote " + write.resolve("summary.md") + " and " + drawn.size()
                    + " charts in " + charts + " (" + started.until(Instant.now(), ChronoUnit.SECONDS) + " s)");
        }
    }

    private static Scenario scenario(ReportPlan.Run run, Map<String, Scenario> scenarios) {
        Function<Map<String, Scenario>, Scenario> built = ReportPlan.builtHere().get(run.scenario());
        return built != null ? built.apply(scenarios) : scenarios.get(run.scenario());
    }

    /**
     * The chart's curves: every series of the run, named by its candidate, prefixed with its section when the run
     * showed more than one (a pass, a backend); at most ten.
     */
    private static Map<String, Summary> curves(List<Findings.Series> series) {
        long sections = series.stream().map(Findings.Series::section).distinct().count();
        Map<String, Summary> curves = new LinkedHashMap<>();
        for (Findings.Series s : series) {
            if (curves.size() == 10) {
                break;
            }
            String name = sections > 1 ? shortSection(s.section()) + ": " + s.candidate() : s.candidate();
            curves.putIfAbsent(name, s.summary());
        }
        return curves;
    }

    /** The part of a heading after its last comma ({@code Handover, held 50-550 ms} -> {@code held 50-550 ms}). */
    private static String shortSection(String section) {
        int comma = section.lastIndexOf(',');
        return comma < 0 ? section : section.substring(comma + 1).strip();
    }

    private static String first(Pattern pattern, CharSequence text) {
        Matcher m = pattern.matcher(text);
        return m.find() ? m.group(1) : null;
    }

    /** Writes to two streams. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int x) throws java.io.IOException {
            a.write(x);
            b.write(x);
        }

        @Override
        public void write(byte[] bytes, int off, int len) throws java.io.IOException {
            a.write(bytes, off, len);
            b.write(bytes, off, len);
        }

        @Override
        public void flush() throws java.io.IOException {
            a.flush();
            b.flush();
        }
    }
}

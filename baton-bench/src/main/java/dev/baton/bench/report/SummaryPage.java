package dev.baton.bench.report;

import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.support.PeerVersions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The markdown of {@code summary.md}: how the run was made, the goals table, the charts. */
final class SummaryPage {

    private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
            .withZone(ZoneOffset.UTC);

    /** What the page says about the run besides the goals. */
    record Context(Instant started, Instant finished, String machineBefore, String machineAfter, boolean quick,
                   List<ReportPlan.Run> runs, Map<String, Double> seconds, Map<String, String> failures,
                   Collection<String> charts, String redisVersion, String postgresVersion) {
    }

    private SummaryPage() {
    }

    static String render(Context c, List<Goal.Row> rows) {
        StringBuilder page = new StringBuilder();
        page.append("# Benchmark summary\n\n");
        page.append("Every comparison scenario in one run, each goal beside the peer measured in the same run. Written"
                + " by\n\n```\njava -Djava.awt.headless=true -jar baton-bench/target/baton-bench.jar report"
                + (c.quick() ? " --quick" : "") + " --write docs/benchmarks\n```\n\n");
        long minutes = Math.round(Duration.between(c.started(), c.finished()).toSeconds() / 60.0);
        page.append("Run ").append(MINUTE.format(c.started())).append(", ").append(minutes).append(" min")
                .append(c.quick() ? " (`--quick`: fewer samples per row, read the tails as rough)" : "")
                .append(". Before: ").append(c.machineBefore()).append(". After: ")
                .append(c.machineAfter().replaceFirst("^.*load average", "load average")).append(".\n\n");
        page.append("Measured: Redis ").append(orUnknown(c.redisVersion())).append(", PostgreSQL ")
                .append(orUnknown(c.postgresVersion())).append(", ")
                .append(PeerVersions.named("Redisson", "org.redisson", "redisson")).append(", ")
                .append(PeerVersions.named("Curator", "org.apache.curator", "curator-recipes"))
                .append(" (ZooKeeper ").append(orUnknown(PeerVersions.version("org.apache.zookeeper", "zookeeper")))
                .append(" test server), Lettuce ").append(orUnknown(PeerVersions.version("io.lettuce", "lettuce-core")))
                .append(". Ratio: Baton's figure over the peer's at the goal's percentile; below 1× Baton is ahead."
                        + " Latencies are p50 / p99.\n\n");
        MarkdownTable table = new MarkdownTable("goal", "Baton", "peer, same run", "ratio", "bound", "verdict");
        rows.forEach(r -> table.row(r.goal(), r.baton(), r.peer(), r.ratio(), r.bound(), r.verdict()));
        page.append(table.render()).append('\n');
        appendMissed(page, rows);
        page.append("The planner against Kafka ").append(orUnknown(PeerVersions.kafka()))
                .append("'s assignors is a JMH run of its own (about 11 minutes) and not part of this report: see"
                        + " [planner.md](planner.md).\n\n");
        page.append("## Runs\n\n");
        MarkdownTable runs = new MarkdownTable("run", "scenario and options", "took", "chart");
        for (ReportPlan.Run run : c.runs()) {
            List<String> args = c.quick() ? run.quick() : run.args();
            String took = String.format(Locale.ROOT, "%.0f s", c.seconds().getOrDefault(run.id(), 0.0));
            String failure = c.failures().get(run.id());
            if (failure != null) {
                took += "; failed: " + failure.replace('|', '/');
            }
            runs.row(run.id(), "`" + run.scenario() + (args.isEmpty() ? "" : " " + String.join(" ", args)) + "`",
                    took, c.charts().contains(run.id()) ? "[" + run.id() + ".png](charts/" + run.id() + ".png)"
                            : "—");
        }
        page.append(runs.render()).append('\n');
        page.append("## Charts\n\nEach curve is one candidate's latencies, cumulative: how many of the samples took at"
                + " most the time on the (logarithmic) axis. Further left is faster; a curve that bends right late"
                + " has a long tail.\n\n");
        for (ReportPlan.Run run : c.runs()) {
            if (c.charts().contains(run.id())) {
                page.append("![").append(run.title()).append("](charts/").append(run.id()).append(".png)\n\n");
            }
        }
        return page.toString();
    }

    /** For each page that explains a path, the goals this run missed on it: where the time goes, what was tried. */
    private static void appendMissed(StringBuilder page, List<Goal.Row> rows) {
        Map<String, List<String>> byPage = new LinkedHashMap<>();
        for (Goal.Row row : rows) {
            String detail = ReportPlan.whereTheTimeGoes(row.run());
            if (row.missed() && detail != null) {
                byPage.computeIfAbsent(detail, d -> new ArrayList<>()).add(row.goal());
            }
        }
        if (byPage.isEmpty()) {
            return;
        }
        page.append("Where a goal is missed, the page of its path says where the time goes and what was tried:\n\n");
        byPage.forEach((detail, goals) -> page.append("- [").append(detail.replaceFirst("#.*", "")).append("](")
                .append(detail).append("): ").append(String.join("; ", goals)).append('\n'));
        page.append('\n');
    }

    private static String orUnknown(String version) {
        return version == null ? "(not run)" : version;
    }
}

package dev.baton.bench.report;

import dev.baton.bench.Scenario;
import dev.baton.bench.support.PeerVersions;
import dev.baton.bench.work.WorkRoutingScenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * What {@code report} runs and what it checks: the comparison scenarios, each under an id with its options (full and
 * {@code --quick}), and the goals read from their results. A scenario is found by its command-line name, so a
 * scenario another engineer rewrites is picked up as it is; its latency tables are charted and read without it
 * knowing (see {@link dev.baton.bench.stats.Findings}). Adding a scenario to the report is one {@link Run} here, and
 * a goal about it one line below.
 */
final class ReportPlan {

    /**
     * One scenario run of the report.
     *
     * @param id       names the run's chart ({@code charts/<id>.png}) and its goals
     * @param title    the chart's title
     * @param scenario the scenario's command-line name
     * @param args     its options in a full report
     * @param quick    its options with {@code --quick}
     * @param charted  which of its tables the chart shows: those under a heading this pattern finds (a scenario's
     *                 calibration tables are not candidates); every table if null
     */
    record Run(String id, String title, String scenario, List<String> args, List<String> quick, Pattern charted) {
        Run(String id, String title, String scenario, List<String> args, List<String> quick) {
            this(id, title, scenario, args, quick, null);
        }

        /** Whether the chart shows the series of {@code section}. */
        boolean charts(String section) {
            return charted == null || charted.matcher(section).find();
        }
    }

    /** The handover scenario's result tables, not its calibration of round trips and hand-offs. */
    private static final Pattern HANDOVER_PASSES = Pattern.compile("^Handover.*, (held|released)");

    private static final String REDISSON = PeerVersions.named("Redisson", "org.redisson", "redisson");
    private static final String CURATOR = PeerVersions.named("Curator", "org.apache.curator", "curator-recipes");

    private ReportPlan() {
    }

    static List<Run> runs() {
        return List.of(
                new Run("handover-redis", "Graceful handover on Redis (t0 release call -> next leader's callback)",
                        "handover", List.of("--backend", "redis", "--candidates",
                                "baton,baton-stepdown,redisson,curator,setnx", "--n", "100", "--warmup", "10"),
                        List.of("--backend", "redis", "--candidates", "baton,baton-stepdown,redisson,curator,setnx",
                                "--n", "40", "--warmup", "5"), HANDOVER_PASSES),
                new Run("handover-postgres", "Graceful handover on PostgreSQL", "handover",
                        List.of("--backend", "postgres", "--candidates", "baton,baton-stepdown,advisory", "--n", "100",
                                "--warmup", "10"),
                        List.of("--backend", "postgres", "--candidates", "baton,baton-stepdown,advisory", "--n", "40",
                                "--warmup", "5"), HANDOVER_PASSES),
                new Run("first-election-redis", "Uncontested first election on Redis", "first-election",
                        List.of("--backend", "redis"), List.of("--backend", "redis", "--n", "100", "--warmup", "10")),
                new Run("first-election-postgres", "Uncontested first election on PostgreSQL", "first-election",
                        List.of("--backend", "postgres"),
                        List.of("--backend", "postgres", "--n", "100", "--warmup", "10")),
                new Run("registry-redis", "Process registry on Redis, 10,000 processes", "registry",
                        List.of("--backend", "redis", "--processes", "10000"),
                        List.of("--backend", "redis", "--processes", "10000", "--n", "300", "--warmup", "50")),
                new Run("registry-postgres", "Process registry on PostgreSQL, 10,000 nodes", "registry",
                        List.of("--backend", "postgres", "--processes", "10000"),
                        List.of("--backend", "postgres", "--processes", "10000", "--n", "100", "--warmup", "20")),
                new Run("work-routing", "Work cluster: results worker -> leader -> Redis -> listener on a non-leader",
                        WORK_ROUTING, List.of("--n", "15", "--warmup", "5"), List.of("--n", "8", "--warmup", "4")),
                new Run("peer-handover", "Seed-node quorum: graceful hand-over, 5 nodes", "peer-handover",
                        List.of(), List.of("--n", "40", "--warmup", "20")));
    }

    /**
     * The page (and section) that says where a run's time goes and what was tried on that path, for the summary to
     * point at from its missed goals; null if none does.
     */
    static String whereTheTimeGoes(String runId) {
        return switch (runId) {
            case "handover-redis", "first-election-redis", "registry-redis" -> "election-redis.md#where-the-time-goes";
            case "handover-postgres", "first-election-postgres", "registry-postgres" ->
                    "election-postgres.md#where-the-time-goes";
            case "work-routing" -> "work-cluster.md#where-the-time-goes";
            case "peer-handover" -> "quorum.md#where-the-time-goes-and-what-could-still-change";
            default -> null;
        };
    }

    /** The report's own routing run: the two rates its goals name, not the scenario's default four steps. */
    static final String WORK_ROUTING = "work-routing@20000,50000";

    /** Scenarios the plan builds itself rather than take from the command line's list. */
    static Map<String, Function<Map<String, Scenario>, Scenario>> builtHere() {
        return Map.of(WORK_ROUTING, all -> new WorkRoutingScenario(new int[] {20_000, 50_000}));
    }

    /** @param postgresVersion the PostgreSQL server's version as the runs printed it, or null */
    static List<Goal> goals(String postgresVersion) {
        String advisory = "PostgreSQL " + (postgresVersion == null ? "" : postgresVersion + " ") + "advisory lock";
        List<Goal> goals = new ArrayList<>();
        // Redis: close() and stepDown() ahead of Redisson's RLock at p50 and p99, held and released at once; and
        // within 1.5x of the hand-written SET NX + PUBLISH floor.
        for (String pass : List.of("held", "released")) {
            String when = pass.equals("held") ? "held 50-550 ms" : "released at once";
            for (String call : List.of("close()", "stepDown()")) {
                for (Goal.Metric metric : Goal.Metric.values()) {
                    goals.add(Goal.latency("Redis handover, `" + call + "`, " + when + ": ahead of Redisson at "
                            + metric.label, "handover-redis", pass, "Baton " + call, "Redisson RLock", REDISSON,
                            metric, Double.NaN, true));
                }
                goals.add(Goal.withinPeer("Redis handover, `" + call + "`, " + when + ": within 1.5x of SET NX at p50",
                        "handover-redis", pass, "Baton " + call, "SET NX + PUBLISH", "SET NX + PUBLISH",
                        Goal.Metric.P50, 1.5));
            }
        }
        goals.add(Goal.latency("Redis handover, `close()`, held: ahead of Curator at p50", "handover-redis", "held",
                "Baton close()", "Curator LeaderLatch", CURATOR, Goal.Metric.P50, Double.NaN, true));
        // PostgreSQL: handover p50 <= 1 ms, p99 <= 2 ms (the advisory lock measured beside it).
        for (String call : List.of("close()", "stepDown()")) {
            goals.add(Goal.latency("PostgreSQL handover, `" + call + "`, held: p50 <= 1 ms", "handover-postgres",
                    "held", "Baton " + call, "PostgreSQL advisory lock", advisory, Goal.Metric.P50, 1, false));
            goals.add(Goal.latency("PostgreSQL handover, `" + call + "`, held: p99 <= 2 ms", "handover-postgres",
                    "held", "Baton " + call, "PostgreSQL advisory lock", advisory, Goal.Metric.P99, 2, false));
        }
        goals.add(Goal.latency("Uncontested first election on Redis, default builder: p99 <= 1 ms",
                "first-election-redis", "first election", "Baton start() -> acquired", "Redisson lock()",
                REDISSON + " `lock()`", Goal.Metric.P99, 1, false));
        goals.add(Goal.latency("Uncontested election on PostgreSQL: p99 <= 2 ms", "first-election-postgres",
                "first election", "Baton start() -> acquired", "pg_advisory_lock()",
                advisory + " `pg_advisory_lock()`", Goal.Metric.P99, 2, false));
        goals.add(Goal.latency("Registry on Redis: 10,000 processes listed, p99 <= 50 ms", "registry-redis", "",
                "members(), all", null, null, Goal.Metric.P99, 50, false));
        goals.add(Goal.latency("Registry on PostgreSQL: 10,000 nodes listed, p99 <= 50 ms", "registry-postgres", "",
                "members(), all", null, null, Goal.Metric.P99, 50, false));
        goals.add(Goal.latency("Work routing through Redis to a non-leader at 20,000 results/s: p99 <= 5 ms",
                "work-routing", "", "20,000 results/s", null, null, Goal.Metric.P99, 5, false));
        goals.add(RoutingLossGoal.at("work-routing", 50_000));
        goals.add(Goal.latency("Quorum hand-over, `close()`, votes fsynced on disk, 5 nodes: p99 <= 10 ms",
                "peer-handover", "", "leader close() -> next leader acquired, votes on disk", null, null,
                Goal.Metric.P99, 10, false));
        return goals;
    }
}

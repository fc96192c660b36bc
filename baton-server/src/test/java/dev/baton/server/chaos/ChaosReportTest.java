package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.acquired;
import static dev.baton.server.chaos.Events.crash;
import static dev.baton.server.chaos.Events.itemOk;
import static dev.baton.server.chaos.Events.lost;
import static dev.baton.server.chaos.Events.read;
import static dev.baton.server.chaos.Events.trial;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.server.chaos.ChaosReport.FaultSummary;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChaosReportTest {

    private static final long MS = 1_000_000;

    /** Three kill trials (leaderless 100, 300, 200 ms), one store restart, one pause trial with no leader after it. */
    private static History run() {
        return History.of(
                acquired(0, "n1", 1, 0, 0),
                trial(1, FaultKind.KILL_NODE, 1000, 1000, 3000, 1100.0),
                crash(1, "n1", 1000),
                acquired(1, "n2", 2, 1050, 1100),
                trial(2, FaultKind.KILL_NODE, 4000, 4000, 6000, 4300.0),
                crash(2, "n2", 4000),
                acquired(2, "n3", 3, 4250, 4300),
                trial(3, FaultKind.KILL_NODE, 7000, 7000, 9000, 7200.0),
                crash(3, "n3", 7000),
                acquired(3, "n1", 4, 7150, 7200),
                trial(4, FaultKind.STORE_RESTART_EMPTY, 10_000, 10_000, 12_000, 10_000.0),
                itemOk(4, "t4-1", "v1", 10_010, 10_020),
                read(4, "t4-1", null, 11_000),
                trial(5, FaultKind.PAUSE_NODE, 13_000, 13_500, 20_000, null),
                itemOk(5, "t5-1", "v1", 13_010, 13_020),
                read(5, "t5-1", null, 19_000),
                // A stale term handed out again while n1 still holds it: safety violations in trial 5.
                acquired(5, "n2", 4, 13_600, 13_700));
    }

    @Test
    void summarisesTrialsFaultsAndViolations() {
        ChaosReport report = ChaosReport.run("redis, normal mode", run(), Checker.standard());

        assertThat(report.trials()).isEqualTo(5);
        assertThat(report.dataLossTrials()).isEqualTo(1);
        assertThat(report.safetyViolations()).isEqualTo(5);
        assertThat(report.livenessMisses()).isEqualTo(1);
        assertThat(report.faults()).extracting(FaultSummary::fault).containsExactly(
                FaultKind.KILL_NODE, FaultKind.PAUSE_NODE, FaultKind.STORE_RESTART_EMPTY);
        FaultSummary kills = report.faults().get(0);
        assertThat(kills.trials()).isEqualTo(3);
        assertThat(kills.leaderlessP50Nanos()).isEqualTo(200 * MS);
        assertThat(kills.leaderlessP99Nanos()).isEqualTo(300 * MS);
        assertThat(kills.leaderMisses()).isZero();
        assertThat(report.faults().get(1).leaderMisses()).isEqualTo(1);
    }

    @Test
    void rendersMarkdownTablesAndQuotesTheFirstViolations() {
        String markdown = ChaosReport.run("redis, normal mode", run(), Checker.standard()).markdown();

        assertThat(markdown).startsWith("### redis, normal mode\n\n5 trials, 1 with a fault that can lose acknowledged"
                + " writes (their items and exclusion not checked). Safety violations: 5 (goal 0). Leader-after-heal misses: 1.\n");
        assertThat(markdown).contains(
                "| checker                     | kind     | violations |\n"
                        + "| --------------------------- | -------- | ---------- |\n"
                        + "| one-holder-per-term         | safety   | 1          |\n"
                        + "| terms-rise                  | safety   | 1          |\n"
                        + "| exclusion                   | safety   | 1          |\n"
                        + "| fencing                     | safety   | 0          |\n"
                        + "| fence-linearizable          | safety   | 0          |\n"
                        + "| acknowledged-items-readable | safety   | 1          |\n"
                        + "| items-linearizable          | safety   | 1          |\n"
                        + "| leader-after-heal           | liveness | 1          |\n",
                "| kill-node           | 3      | 200                 | 300                 | 0                        |\n",
                "| store-restart-empty | 1      | 0.000               | 0.000               | 0                        |\n",
                "- one-holder-per-term (trial 5): term 4 acquired by 2 nodes: n1 at trial 3 +200.0 ms;"
                        + " n2 at trial 5 +700.0 ms\n",
                "- exclusion (trial 5): n1 (term 4) and n2 (term 4) both counted themselves leader for 6300.0 ms:"
                        + " n1 from trial 3 +200.0 ms to trial 5 +7000.0 ms (still valid when the history ends, no"
                        + " deadline recorded), n2 from trial 5 +700.0 ms to trial 5 +7000.0 ms",
                "- acknowledged-items-readable (trial 5): item t5-1: read as missing at +6000.0 ms",
                "- items-linearizable (trial 5): item t5-1: no order of its writes explains the read as absent at"
                        + " +6000.0 ms");
        assertThat(markdown).doesNotContain("t4-1");
    }

    @Test
    void rendersPlainTextForTheTerminal() {
        String text = ChaosReport.run("redis", run(), Checker.standard()).text();

        assertThat(text).startsWith("redis\n=====\n5 trials");
        assertThat(text).contains(
                "checker                      kind      violations\n"
                        + "-".repeat(49) + "\n"
                        + "one-holder-per-term          safety             1\n",
                "kill-node                 3                  200                  300                         0\n",
                "First violations:\n  one-holder-per-term (trial 5): term 4");
        assertThat(text).doesNotContain("|");
    }

    @Test
    void aCleanRunQuotesNothing() {
        History clean = History.of(
                acquired(0, "n1", 1, 0, 0),
                trial(1, FaultKind.NONE, 1000, 1000, 3000, 1000.0));

        ChaosReport report = ChaosReport.run("postgresql", clean, Checker.standard());

        assertThat(report.safetyViolations()).isZero();
        assertThat(report.markdown()).contains("1 trial. Safety violations: 0 (goal 0).")
                .doesNotContain("First violations");
    }

    @Test
    void quotesAtMostAFewViolationsPerChecker() {
        History history = History.of(
                acquired(1, "n1", 1, 0, 1), acquired(1, "n2", 1, 0, 1),
                acquired(1, "n1", 2, 0, 1), acquired(1, "n2", 2, 0, 1),
                acquired(1, "n1", 3, 0, 1), acquired(1, "n2", 3, 0, 1),
                acquired(1, "n1", 4, 0, 1), acquired(1, "n2", 4, 0, 1),
                acquired(1, "n1", 5, 0, 1), acquired(1, "n2", 5, 0, 1));

        String text = ChaosReport.run("bully", history, List.of(new OneHolderPerTerm())).text();

        assertThat(text).contains("term 3 acquired").doesNotContain("term 4 acquired")
                .contains("one-holder-per-term: 2 more");
    }

    @Test
    void putsTwoRunsSideBySide() {
        History clean = History.of(trial(1, FaultKind.NONE, 0, 0, 100, 0.0));
        ChaosReport normal = ChaosReport.run("normal", clean, Checker.standard());
        ChaosReport naive = ChaosReport.run("naive", run(), Checker.standard());

        assertThat(ChaosReport.sideBySideMarkdown(normal, naive)).isEqualTo(
                "| checker                     | kind     | normal | naive |\n"
                        + "| --------------------------- | -------- | ------ | ----- |\n"
                        + "| trials                      |          | 1      | 5     |\n"
                        + "| one-holder-per-term         | safety   | 0      | 1     |\n"
                        + "| terms-rise                  | safety   | 0      | 1     |\n"
                        + "| exclusion                   | safety   | 0      | 1     |\n"
                        + "| fencing                     | safety   | 0      | 0     |\n"
                        + "| fence-linearizable          | safety   | 0      | 0     |\n"
                        + "| acknowledged-items-readable | safety   | 0      | 1     |\n"
                        + "| items-linearizable          | safety   | 0      | 1     |\n"
                        + "| leader-after-heal           | liveness | 0      | 1     |\n");
        assertThat(ChaosReport.sideBySideText(normal, naive)).contains("terms-rise").doesNotContain("|");
    }

    @Test
    void overlapsInATrialThatBreaksAnAssumptionAreReportedApartAsExpected() {
        History history = History.of(
                acquired(0, "n1", 1, 0, 0),
                trial(1, FaultKind.STORE_CLOCK_STEP_LARGE, 1000, 3000, 4000, 3000.0),
                acquired(1, "n2", 2, 1100, 1200),
                lost(1, "n1", 1, 1500));

        ChaosReport report = ChaosReport.run("redis", history, Checker.standard());

        assertThat(report.safetyViolations()).isZero();
        assertThat(report.expectedViolations()).isEqualTo(1);
        assertThat(report.markdown()).startsWith("### redis\n\n1 trial, 1 with a fault that breaks an assumption"
                + " exclusion rests on (their exclusion reported apart). Safety violations: 0 (goal 0)."
                + " Leader-after-heal misses: 0. Assumption broken, expected: 1 exclusion overlaps.\n")
                .contains("| exclusion-assumption-broken | expected | 1          |\n",
                        "- exclusion-assumption-broken (trial 1): n1 (term 1) and n2 (term 2)");
    }

    @Test
    void aRunWithoutAFaultThatBreaksAnAssumptionHasNoExpectedRow() {
        ChaosReport report = ChaosReport.run("redis", run(), Checker.standard());

        assertThat(report.results()).extracting(ChaosReport.CheckerResult::checker)
                .doesNotContain("exclusion-assumption-broken");
    }

    @Test
    void percentilesUseTheNearestRank() {
        List<Long> values = List.of(5L, 1L, 4L, 2L, 3L);

        assertThat(ChaosReport.percentile(values, 50)).isEqualTo(3);
        assertThat(ChaosReport.percentile(values, 99)).isEqualTo(5);
        assertThat(ChaosReport.percentile(List.of(7L), 50)).isEqualTo(7);
        assertThat(ChaosReport.percentile(List.of(), 99)).isZero();
    }
}

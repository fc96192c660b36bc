package dev.baton.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.bench.stats.Findings;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.Summary;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** A goal reads Baton's row and the peer's from the run's findings and says met or missed. */
class GoalTest {

    /** 100 samples, 1..100 times {@code step} microseconds: p50 is 50 steps, p99 99. */
    private static Summary spread(long stepMicros) {
        return Summary.of(LongStream.rangeClosed(1, 100).map(i -> i * stepMicros * 1000).toArray());
    }

    private static Goal handoverGoal(double boundMillis, boolean beatPeer) {
        return Goal.latency("handover", "run", "held", "Baton close()", "Redisson RLock", "Redisson 9.9",
                Goal.Metric.P99, boundMillis, beatPeer);
    }

    @Test
    void aRowUnderItsBoundAndAheadOfThePeerIsMet() {
        try (Findings findings = Findings.open()) {
            findings.beginRun("run", () -> "Handover, held 50-550 ms");
            new LatencyReport().add("Baton close()", spread(10), "").add("Redisson RLock", spread(20), "").table();

            Goal.Row row = handoverGoal(2, true).evaluate(findings);

            assertThat(row.baton()).isEqualTo("Baton close(): 0.500 / 0.990 ms");
            assertThat(row.peer()).isEqualTo("Redisson 9.9: 1.00 / 1.98 ms");
            assertThat(row.ratio()).isEqualTo("0.50× at p99");
            assertThat(row.bound()).isEqualTo("p99 <= 2 ms, and p99 below Redisson 9.9's");
            assertThat(row.verdict()).isEqualTo("**met**");
        }
    }

    @Test
    void overTheBoundOrBehindThePeerIsMissed() {
        try (Findings findings = Findings.open()) {
            findings.beginRun("run", () -> "Handover, held");
            new LatencyReport().add("Baton close(), listener on Runnable::run", spread(5), "")
                    .add("Baton close()", spread(30), "").add("Redisson RLock", spread(20), "").table();

            assertThat(handoverGoal(2, false).evaluate(findings).verdict()).isEqualTo("**missed**");
            assertThat(handoverGoal(5, true).evaluate(findings).verdict()).isEqualTo("**missed**");
            assertThat(handoverGoal(5, false).evaluate(findings).verdict()).isEqualTo("**met**");
            assertThat(handoverGoal(5, false).evaluate(findings).baton()).startsWith("Baton close(): ");
        }
    }

    @Test
    void aRowTheRunDidNotShowIsNotMeasured() {
        try (Findings findings = Findings.open()) {
            findings.beginRun("run", () -> "Handover, released at once");
            new LatencyReport().add("Baton close()", spread(1), "").table();

            Goal.Row row = handoverGoal(2, true).evaluate(findings);

            assertThat(row.verdict()).isEqualTo("not measured");
            assertThat(row.baton()).contains("the run showed no table here");
        }
    }

    @Test
    void routingIsJudgedByWhatArrivedAndWhatIsMissing() {
        try (Findings findings = Findings.open()) {
            findings.beginRun("work-routing", () -> "");
            Goal goal = RoutingLossGoal.at("work-routing", 50_000);
            assertThat(goal.evaluate(findings).verdict()).isEqualTo("not measured");

            Findings.fact("receivedPerSecond@50000", 49_990);
            Findings.fact("checked@50000", 400_000);
            Findings.fact("missing@50000", 0);
            Findings.fact("dropped@50000", 0);
            assertThat(goal.evaluate(findings).verdict()).isEqualTo("**met**");

            Findings.fact("missing@50000", 3);
            assertThat(goal.evaluate(findings).verdict()).isEqualTo("**missed**");
            assertThat(goal.evaluate(findings).baton()).contains("3 missing");
        }
    }
}

package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.Leadership;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.testing.ValidityReports.Report;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The quorum election reports each leadership's deadline through {@code ElectionMetrics.validUntil}: when the term
 * begins, and before every majority's acknowledgement moves it on, so that a fault harness can rebuild the exact
 * interval in which the leader could count itself valid.
 */
class QuorumValidityReportTest {

    private static SimCluster formed() {
        SimCluster cluster = new SimCluster(61, 3, 3, QuorumConfig.fast(),
                LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(3)), true);
        cluster.startWithState(1, 2, 3);
        cluster.advance(Duration.ofSeconds(3));
        return cluster;
    }

    @Test
    void theLeaderReportsItsDeadlineWhenItsTermBeginsAndEachTimeAMajorityMovesIt() {
        SimCluster cluster = formed();
        SimCluster.Node leader = cluster.leader();
        Leadership leadership = leader.election.leadership().orElseThrow();

        List<Report> reports = leader.validity.of(leadership.term());

        assertThat(leader.validity.all()).as("no other term was led").isEqualTo(reports);
        assertThat(reports).hasSizeGreaterThan(2);
        assertThat(reports.get(0).publishedDeadline()).as("reported before the leadership was published").isEmpty();
        for (Report report : reports.subList(1, reports.size())) {
            assertThat(report.publishedDeadline()).as("reported before the deadline moved")
                    .hasValueSatisfying(before -> assertThat(before).isLessThan(report.deadlineNanos()));
        }
        for (int i = 1; i < reports.size(); i++) {
            assertThat(reports.get(i).deadlineNanos()).isGreaterThan(reports.get(i - 1).deadlineNanos());
        }
        for (Report report : reports) {
            assertThat(report.deadlineNanos() - report.at()).isPositive()
                    .isLessThanOrEqualTo(cluster.config.heartbeatTimeout().toNanos());
        }
        assertThat(reports.get(reports.size() - 1).deadlineNanos()).as("the deadline in force is the last reported")
                .isEqualTo(leadership.deadlineNanos());
    }

    @Test
    void followersReportNothingAndASuccessorReportsItsOwnTerm() {
        SimCluster cluster = formed();
        SimCluster.Node old = cluster.leader();
        long oldTerm = old.election.leadership().orElseThrow().term();
        for (SimCluster.Node node : cluster.live()) {
            if (node != old) {
                assertThat(node.validity.all()).as("%s follows", node.address).isEmpty();
            }
        }

        cluster.crash(old.address);
        cluster.advanceUntil(Duration.ofSeconds(3), () -> !cluster.leaders().isEmpty());

        SimCluster.Node successor = cluster.leader();
        Leadership next = successor.election.leadership().orElseThrow();
        assertThat(next.term()).isGreaterThan(oldTerm);
        assertThat(successor.validity.all()).isNotEmpty().allSatisfy(report -> assertThat(report.term())
                .isEqualTo(next.term()));
        assertThat(successor.validity.all().get(successor.validity.all().size() - 1).deadlineNanos())
                .isEqualTo(next.deadlineNanos());
    }
}

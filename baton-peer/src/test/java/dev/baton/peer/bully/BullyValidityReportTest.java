package dev.baton.peer.bully;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.Leadership;
import dev.baton.peer.testing.ValidityReports.Report;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bully election reports each leadership's deadline through {@code ElectionMetrics.validUntil}: when the term
 * begins, and before every confirmation of the term in the leader store moves it on, so that a fault harness can
 * rebuild the exact interval in which the leader could count itself valid.
 */
class BullyValidityReportTest {

    @Test
    void theLeaderReportsItsDeadlineWhenItsTermBeginsAndEachTimeTheStoreConfirmsIt() {
        BullyCluster cluster = BullyCluster.fast(71, 3).startInOrder();
        BullyCluster.Node leader = cluster.steady();
        cluster.advance(cluster.config.storeCheckInterval().multipliedBy(4));
        Leadership leadership = leader.election.leadership().orElseThrow();

        List<Report> reports = leader.validity.of(leadership.term());

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
                    .isLessThanOrEqualTo(cluster.config.leadershipValidity().toNanos());
        }
        assertThat(reports.get(reports.size() - 1).deadlineNanos()).as("the deadline in force is the last reported")
                .isEqualTo(leadership.deadlineNanos());
    }

    @Test
    void followersReportNothing() {
        BullyCluster cluster = BullyCluster.fast(72, 3).startInOrder();
        BullyCluster.Node leader = cluster.steady();

        for (BullyCluster.Node node : cluster.live()) {
            if (node != leader) {
                assertThat(node.validity.all()).as("%s follows", node.address)
                        .allSatisfy(report -> assertThat(report.term()).isLessThan(leader.node().term()));
            }
        }
        assertThat(leader.validity.of(leader.node().term())).isNotEmpty();
    }
}

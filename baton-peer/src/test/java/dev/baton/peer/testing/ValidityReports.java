package dev.baton.peer.testing;

import dev.baton.core.Election;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.Leadership;
import dev.baton.core.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An {@link ElectionMetrics} that keeps every {@link #validUntil} report of one node, with the node's clock reading
 * and the deadline its published leadership had at that moment, so that a test can tell a deadline was reported
 * before it took effect.
 */
public final class ValidityReports implements ElectionMetrics {

    /**
     * One report: {@code term} counts itself valid until {@code deadlineNanos}, reported at {@code at}, when the
     * node's published leadership of that term had the deadline {@code publishedDeadline} (empty: none was published).
     */
    public record Report(long term, long deadlineNanos, long at, Optional<Long> publishedDeadline) {
    }

    private final Clock clock;
    private final List<Report> reports = new CopyOnWriteArrayList<>();
    private volatile Election election;

    public ValidityReports(Clock clock) {
        this.clock = clock;
    }

    /** Reads the published leadership of {@code watched} at each report from now on. */
    public void watch(Election watched) {
        this.election = watched;
    }

    @Override
    public void validUntil(long term, long deadlineNanos) {
        Election watched = election;
        Optional<Long> published = watched == null ? Optional.empty() : watched.leadership()
                .filter(held -> held.term() == term).map(Leadership::deadlineNanos);
        reports.add(new Report(term, deadlineNanos, clock.nanoTime(), published));
    }

    /** Every report so far, oldest first. */
    public List<Report> all() {
        return List.copyOf(reports);
    }

    /** The reports for {@code term}, oldest first. */
    public List<Report> of(long term) {
        return reports.stream().filter(report -> report.term() == term).toList();
    }
}

package dev.baton.samples.leaderjob;

import dev.baton.core.Election;
import dev.baton.core.Leadership;
import dev.baton.core.fencing.LeadershipNotValidException;
import dev.baton.core.fencing.StaleTermException;
import dev.baton.spring.CurrentLeadership;
import dev.baton.spring.LeaderOnly;
import dev.baton.spring.fencing.JdbcFence;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The leader-only job: every {@code leader-job.interval} the leader writes a report row, through a fenced
 * transaction that carries its term. A follower's scheduler calls {@link #run()} too, and nothing happens.
 */
@Component
public class ReportJob {

    private static final Logger log = LoggerFactory.getLogger(ReportJob.class);

    private final JdbcFence fence;
    private final Election election;
    private final AtomicLong runs = new AtomicLong();

    public ReportJob(JdbcFence fence, Election election) {
        this.fence = fence;
        this.election = election;
    }

    @Scheduled(fixedDelayString = "${leader-job.interval:2s}")
    @LeaderOnly
    public void run() {
        runs.incrementAndGet();
        write(CurrentLeadership.require());
    }

    /**
     * Writes one report row under {@code leadership}'s term.
     *
     * @return false if it was refused (this leadership is no longer valid, or a newer leader has written since) or
     *     the database failed
     */
    public boolean write(Leadership leadership) {
        try {
            fence.execute("report", leadership, connection -> {
                try (PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO job_runs (node, term) VALUES (?, ?)")) {
                    insert.setString(1, election.nodeId());
                    insert.setLong(2, leadership.term());
                    return insert.executeUpdate();
                }
            });
            log.info("report written by {} under term {}", election.nodeId(), leadership.term());
            return true;
        } catch (LeadershipNotValidException lapsed) {
            log.warn("report of term {} not written: this leadership is no longer valid", lapsed.term());
            return false;
        } catch (StaleTermException stale) {
            log.warn("report of term {} refused: term {} has written since", stale.term(), stale.currentTerm());
            return false;
        } catch (SQLException e) {
            log.warn("report of term {} not written: {}", leadership.term(), e.getMessage());
            return false;
        }
    }

    /** How many times the job ran on this copy. */
    public long runs() {
        return runs.get();
    }
}

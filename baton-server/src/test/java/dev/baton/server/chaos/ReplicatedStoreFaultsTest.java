package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.acquired;
import static dev.baton.server.chaos.Events.fault;
import static dev.baton.server.chaos.Events.ok;
import static dev.baton.server.chaos.Events.trial;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The replicated stores' faults as the checkers and the report see them: a store that fails over to a server without
 * the newest grant, and issues a term again or lets a deposed leader write, is caught the same way as any other
 * backend's; the fault names survive the history file and appear in the per-fault table.
 */
class ReplicatedStoreFaultsTest {

    @TempDir
    Path dir;

    @Test
    void aPromotedReplicaThatIssuesATermAgainIsCaught() {
        // n2 was granted term 5 on the old primary; the promoted replica never had it and grants 5 again to n3.
        History history = History.of(
                trial(1, FaultKind.SENTINEL_LAGGING_PROMOTED, 0, 2000, 4000, 2500.0),
                fault(1, FaultKind.SENTINEL_LAGGING_PROMOTED, null, 0, 2000),
                acquired(1, "n1", 4, -1000, -990),
                acquired(1, "n2", 5, 100, 110),
                acquired(1, "n3", 5, 2200, 2210));

        ChaosVerdict verdict = ChaosVerdict.of(settings("redis-sentinel"), history);

        assertThat(verdict.safe()).isFalse();
        assertThat(verdict.text()).contains("term 5 acquired by 2 nodes", "sentinel-lagging-promoted");
    }

    @Test
    void aDeposedLeadersWriteAcceptedOnTheOldPrimaryAfterItsSuccessorsIsCaught() {
        // Two primaries for a while: n1 writes under term 4 on the old one after n2's term-5 write was acknowledged.
        History history = History.of(
                trial(1, FaultKind.LAGGING_STANDBY_PROMOTED, 0, 2000, 4000, 2500.0),
                fault(1, FaultKind.LAGGING_STANDBY_PROMOTED, null, 0, 2000),
                acquired(1, "n1", 4, -1000, -990),
                acquired(1, "n2", 5, 2100, 2110),
                ok(1, "n2", 5, 1, 2120, 2130),
                ok(1, "n1", 4, 77, 2140, 2150));

        ChaosVerdict verdict = ChaosVerdict.of(settings("postgresql-standby"), history);

        assertThat(verdict.safe()).isFalse();
        assertThat(verdict.text()).contains("fencing", "write 77 by n1 under term 4");
    }

    @Test
    void theReplicatedTargetsOfferTheirOwnFailoversBesideTheNodeFaults() {
        List<FaultKind> nodeFaults = List.of(FaultKind.NONE, FaultKind.KILL_NODE, FaultKind.PAUSE_NODE);

        assertThat(FaultKind.SENTINEL_PRIMARY_KILLED.canLoseData()).isTrue();
        assertThat(FaultKind.of("lagging-standby-promoted")).isEqualTo(FaultKind.LAGGING_STANDBY_PROMOTED);
        assertThat(nodeFaults).allSatisfy(kind -> assertThat(kind.canLoseData()).isFalse());
    }

    @ParameterizedTest
    @EnumSource(value = FaultKind.class, names = {"SENTINEL_PRIMARY_KILLED", "SENTINEL_LAGGING_PROMOTED",
        "SENTINEL_FAILOVER", "STANDBY_PROMOTED", "LAGGING_STANDBY_PROMOTED"})
    void eachReplicatedStoreFaultSurvivesTheHistoryFileAndHasARowInTheReport(FaultKind kind) throws Exception {
        History history = History.of(
                trial(1, kind, 0, 2000, 4000, 2100.0),
                fault(1, kind, null, 0, 2000),
                acquired(1, "n1", 4, -1000, -990));
        Path file = dir.resolve(kind.wireName() + ".jsonl");
        history.writeTo(file);

        History read = History.read(file);

        assertThat(read.eventsOf(HistoryEvent.Trial.class)).singleElement()
                .satisfies(t -> assertThat(t.fault()).isEqualTo(kind));
        assertThat(ChaosVerdict.of(settings("redis-sentinel"), read).text()).contains(kind.wireName());
    }

    private ChaosRunSettings settings(String backend) {
        return new ChaosRunSettings(backend, 1, 1, 3, false, Optional.empty(), List.of(), false, dir);
    }
}

package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.acquired;
import static dev.baton.server.chaos.Events.in;
import static dev.baton.server.chaos.Events.lost;
import static dev.baton.server.chaos.Events.ms;
import static dev.baton.server.chaos.Events.ok;
import static dev.baton.server.chaos.Events.trial;
import static dev.baton.server.chaos.Events.validUntil;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkers on histories of nodes that run several election groups ({@code baton chaos --groups}): each keys its
 * state by (group, node), so leaders of different groups at the same instant, or the same term in two groups, are
 * fine, while the same overlap within one group is still caught and names its group.
 */
class MultiGroupCheckersTest {

    private static final String A = "chaos";
    private static final String B = "chaos-2";

    @Test
    void twoNodesLeadingDifferentGroupsAtOnceIsNoOverlap() {
        History history = History.of(
                in(A, validUntil(1, "n1", 5, 3000, 9)),
                in(A, acquired(1, "n1", 5, 5, 10)),
                in(B, validUntil(1, "n2", 6, 3000, 19)),
                in(B, acquired(1, "n2", 6, 15, 20)));

        assertThat(new Exclusion().check(history)).isEmpty();
    }

    @Test
    void twoNodesLeadingTheSameGroupAtOnceIsAnOverlapNamingTheGroup() {
        History history = History.of(
                in(A, validUntil(1, "n1", 5, 3000, 9)),
                in(A, acquired(1, "n1", 5, 5, 10)),
                in(B, validUntil(1, "n1", 5, 3000, 9)),
                in(B, acquired(1, "n1", 5, 5, 10)),
                in(B, validUntil(1, "n2", 6, 4000, 1999)),
                in(B, acquired(1, "n2", 6, 1900, 2000)));

        assertThat(new Exclusion().check(history)).singleElement().satisfies(violation ->
                assertThat(violation.message()).startsWith("group chaos-2: n1 (term 5) and n2 (term 6) both counted"
                        + " themselves leader for 1000.0 ms"));
    }

    @Test
    void aLossInOneGroupDoesNotEndTheSameTermsLeadershipInAnother() {
        // n1 leads both groups under the same term number; it hands group A over at 100 ms but still counts itself
        // leader of group B until its deadline, when n2 already leads B: keyed by (node, term) alone, A's loss would
        // end B's interval too and hide the overlap.
        History history = History.of(
                in(A, validUntil(1, "n1", 5, 3000, 9)),
                in(A, acquired(1, "n1", 5, 5, 10)),
                in(B, validUntil(1, "n1", 5, 3000, 9)),
                in(B, acquired(1, "n1", 5, 5, 10)),
                in(A, lost(1, "n1", 5, 100)),
                in(B, validUntil(1, "n2", 6, 4000, 1999)),
                in(B, acquired(1, "n2", 6, 1900, 2000)));

        assertThat(new Exclusion().check(history)).singleElement().satisfies(violation ->
                assertThat(violation.message()).startsWith("group chaos-2: n1 (term 5) and n2 (term 6)"));
    }

    @Test
    void anotherGroupsDeadlineDoesNotShortenALeadership() {
        // n1's group-A leadership of term 5 ends at 1000 ms; its group-B one of the same term runs to 3000 ms, past
        // n2's acquisition of B at 2000 ms.
        History history = History.of(
                in(A, validUntil(1, "n1", 5, 1000, 9)),
                in(A, acquired(1, "n1", 5, 5, 10)),
                in(B, validUntil(1, "n1", 5, 3000, 9)),
                in(B, acquired(1, "n1", 5, 5, 10)),
                in(B, validUntil(1, "n2", 6, 4000, 1999)),
                in(B, acquired(1, "n2", 6, 1900, 2000)));

        assertThat(new Exclusion().check(history)).singleElement().satisfies(violation ->
                assertThat(violation.message()).contains("group chaos-2", "for 1000.0 ms"));
    }

    @Test
    void theSameTermInTwoGroupsIsNotIssuedTwice() {
        History apart = History.of(in(A, acquired(1, "n1", 7, 5, 10)), in(B, acquired(1, "n2", 7, 15, 20)));
        History together = History.of(in(B, acquired(1, "n1", 7, 5, 10)), in(B, acquired(1, "n2", 7, 15, 20)));

        assertThat(new OneHolderPerTerm().check(apart)).isEmpty();
        assertThat(new OneHolderPerTerm().check(together)).singleElement().satisfies(violation ->
                assertThat(violation.message()).startsWith("group chaos-2: term 7 acquired by 2 nodes"));
    }

    @Test
    void termsRiseWithinAGroupNotAcrossGroups() {
        History apart = History.of(in(A, acquired(1, "n1", 100, 5, 10)), in(B, acquired(1, "n2", 50, 20, 30)));
        History together = History.of(in(B, acquired(1, "n1", 100, 5, 10)), in(B, acquired(1, "n2", 50, 20, 30)));

        assertThat(new TermsRise().check(apart)).isEmpty();
        assertThat(new TermsRise().check(together)).singleElement().satisfies(violation ->
                assertThat(violation.message()).startsWith("group chaos-2: n2 acquired term 50"));
    }

    @Test
    void fencingComparesTheWritesOfOneGroup() {
        History apart = History.of(in(A, ok(1, "n1", 9, 1, 10, 20)), in(B, ok(1, "n2", 3, 1, 30, 40)));
        History together = History.of(in(A, ok(1, "n1", 9, 1, 10, 20)), in(A, ok(1, "n2", 3, 1, 30, 40)));

        assertThat(new Fencing().check(apart)).isEmpty();
        assertThat(new LinearizableFence(LinearizableFence.Resource.WRITE_FENCE).check(apart)).isEmpty();
        assertThat(new Fencing().check(together)).singleElement().satisfies(violation ->
                assertThat(violation.message()).startsWith("group chaos: write 1 by n2 under term 3"));
        assertThat(new LinearizableFence(LinearizableFence.Resource.WRITE_FENCE).check(together)).hasSize(1);
    }

    @Test
    void aGroupWithoutALeaderAfterHealingIsAMissNamingIt() {
        // The harness saw group A's leader at once (A is the group it drives, whatever the order of the lines); group
        // B's leader lost it during the fault and another took over; group chaos-3's never came back.
        History history = History.of(
                trial(1, FaultKind.STORE_PAUSE, 0, 1000, 8000, 1000.0),
                in(B, acquired(1, "n2", 8, 5, 10)),
                in(A, acquired(1, "n1", 5, 5, 10)),
                in(B, lost(1, "n2", 8, 500)),
                in(B, acquired(1, "n3", 9, 1400, 1500)),
                in("chaos-3", acquired(1, "n1", 4, 5, 10)),
                in("chaos-3", lost(1, "n1", 4, 600)));

        List<Violation> misses = new LeaderAfterHeal().check(history);
        ChaosReport report = ChaosReport.run("redis", history, Checker.standard());

        assertThat(misses).singleElement().satisfies(miss -> {
            assertThat(miss.trial()).isEqualTo(1);
            assertThat(miss.message()).startsWith("group chaos-3: no leader after store-pause healed");
        });
        assertThat(report.livenessMisses()).isEqualTo(1);
        assertThat(report.faults()).singleElement().extracting(ChaosReport.FaultSummary::leaderMisses).isEqualTo(1);
    }

    @Test
    void theDrivenGroupComesFirstWhateverTheOrderOfTheLines() {
        History history = History.of(in(B, acquired(0, "n1", 3, 1, 2)), in(A, acquired(0, "n2", 4, 3, 4)),
                trial(1, FaultKind.NONE, 0, 1000, 2000, 1000.0));

        assertThat(history.groups()).extracting(History.Group::name).containsExactly(A, B);
        assertThat(history.groups().get(1).history().events()).hasSize(2);
        assertThat(history.drivenGroup().eventsOf(HistoryEvent.Acquired.class)).extracting(HistoryEvent.Acquired::node)
                .containsExactly("n2");
    }

    @Test
    void aTrialsLeaderlessTimeIsItsWorstGroups() {
        History history = History.of(
                trial(1, FaultKind.NONE, 0, 1000, 2000, 1000.0),
                in(A, acquired(0, "n1", 5, -20, -10)),
                in(B, acquired(0, "n1", 5, -20, -10)),
                in(B, lost(1, "n1", 5, 200)),
                in(B, acquired(1, "n2", 6, 500, 700)));

        assertThat(LeaderlessTime.perTrial(history)).containsEntry(1, 500 * 1_000_000L);
        assertThat(LeaderlessTime.perTrialAndGroup(history)).containsExactlyInAnyOrder(0L, 500 * 1_000_000L);
    }

    @Test
    void theReportSaysHowManyGroupsEachNodeRan() {
        History history = History.of(
                trial(1, FaultKind.NONE, 0, 1000, 2000, 1000.0),
                in(A, acquired(0, "n1", 5, -20, -10)),
                in(B, acquired(0, "n2", 5, -20, -10)));

        assertThat(ChaosReport.run("redis", history, Checker.standard()).text())
                .contains("Groups: 2 elections per node");
        assertThat(ChaosReport.run("redis", History.of(trial(1, FaultKind.NONE, 0, 1000, 2000, 1000.0),
                acquired(0, "n1", 5, -20, -10)), Checker.standard()).text()).doesNotContain("Groups:");
    }

    @Test
    void aGroupSurvivesTheFileAndARunOfOneGroupWritesNone() {
        String grouped = History.toJson(in(B, validUntil(3, "n2", 6, 2000, 1990)));
        String single = History.toJson(validUntil(3, "n2", 6, 2000, 1990));

        assertThat(grouped).isEqualTo("{\"type\":\"valid-until\",\"trial\":3,\"node\":\"n2\",\"term\":6,\"deadline\":"
                + ms(2000) + ",\"mono\":" + ms(1990) + ",\"group\":\"chaos-2\"}");
        assertThat(single).doesNotContain("group");
    }

    @Test
    void aHistoryFileWithAndWithoutGroupsReadsBack(@TempDir Path dir) throws IOException {
        History history = History.of(in(B, acquired(1, "n1", 5, 5, 10)), in(B, ok(1, "n1", 5, 1, 20, 30)),
                acquired(1, "n2", 6, 40, 50));
        Path file = dir.resolve("history.jsonl");
        history.writeTo(file);

        assertThat(History.read(file).events()).isEqualTo(history.events());
        Files.writeString(file, "{\"type\":\"lost\",\"trial\":1,\"node\":\"n1\",\"term\":5,\"reason\":\"RELEASED\","
                + "\"mono\":7}\n");
        assertThat(History.read(file).events()).singleElement()
                .isEqualTo(new HistoryEvent.Lost(1, "n1", 5, "RELEASED", 7));
    }
}

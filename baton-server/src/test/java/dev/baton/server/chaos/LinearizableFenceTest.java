package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.acquired;
import static dev.baton.server.chaos.Events.ok;
import static dev.baton.server.chaos.Events.refused;
import static dev.baton.server.chaos.Events.trial;
import static dev.baton.server.chaos.Events.unknown;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.server.chaos.LinearizableFence.Resource;
import org.junit.jupiter.api.Test;

class LinearizableFenceTest {

    private final Checker store = new LinearizableFence(Resource.STORE_REGISTER);
    private final Checker fence = new LinearizableFence(Resource.WRITE_FENCE);

    @Test
    void writesUnderRisingTermsWithTheirGrantsAreLinearizable() {
        History history = History.of(
                acquired(1, "n1", 4, 0, 1),
                ok(1, "n1", 4, 1, 2, 4),
                ok(1, "n1", 4, 2, 5, 7),
                acquired(1, "n2", 5, 9, 10),
                ok(1, "n2", 5, 1, 11, 12));

        assertThat(store.check(history)).isEmpty();
        assertThat(fence.check(history)).isEmpty();
    }

    @Test
    void onAStoreAWriteAcceptedAfterANewerTermWasSurelyGrantedIsCaughtBeforeAnyNewerWrite() {
        History history = History.of(
                trial(3, FaultKind.PAUSE_NODE, 0, 3000, 6000, 3100.0),
                acquired(3, "n1", 4, 0, 1),
                acquired(3, "n2", 5, 1000, 1002),
                ok(3, "n1", 4, 7, 1500, 1503));

        assertThat(new Fencing().check(history)).as("no newer write was acknowledged: fencing sees nothing").isEmpty();
        assertThat(store.check(history)).singleElement().satisfies(violation -> {
            assertThat(violation.checker()).isEqualTo("fence-linearizable");
            assertThat(violation.trial()).isEqualTo(3);
            assertThat(violation.message()).contains("write 7 by n1 under term 4 (ok");
        });
        assertThat(fence.check(history)).as("a write fence knows nothing of grants").isEmpty();
    }

    @Test
    void aGrantConcurrentWithTheWriteMayComeAfterIt() {
        History history = History.of(
                acquired(1, "n1", 4, 0, 1),
                acquired(1, "n2", 5, 1000, 1600),
                ok(1, "n1", 4, 7, 1500, 1503));

        assertThat(store.check(history)).isEmpty();
    }

    @Test
    void aStaleAcceptedWriteAfterANewerAcknowledgedOneIsCaught() {
        History history = History.of(
                ok(2, "n2", 5, 1, 2000, 2004),
                ok(2, "n1", 4, 17, 3050, 3052));

        assertThat(store.check(history)).hasSize(1);
        assertThat(fence.check(history)).hasSize(1);
    }

    @Test
    void onAWriteFenceARefusalNeedsAHigherTermThatCouldHaveBeenAdmittedBefore() {
        History unexplained = History.of(
                ok(1, "n1", 4, 1, 0, 2),
                refused(1, "n1", 4, 2, 5, 7));
        History explainedByAnUnansweredWrite = History.of(
                ok(1, "n1", 4, 1, 0, 2),
                unknown(1, "n2", 5, 1, 4),
                refused(1, "n1", 4, 2, 5, 7));

        assertThat(fence.check(unexplained)).singleElement()
                .satisfies(violation -> assertThat(violation.message()).contains("write 2 by n1 under term 4 (refused"));
        assertThat(fence.check(explainedByAnUnansweredWrite)).isEmpty();
        assertThat(store.check(unexplained)).as("a store may refuse for a grant nobody announced").isEmpty();
    }

    @Test
    void anUnansweredWriteMayTakeEffectLongAfterItWasSent() {
        History history = History.of(
                ok(1, "n1", 4, 1, 0, 2),
                unknown(1, "n2", 6, 1, 3),
                ok(1, "n1", 4, 2, 100, 102),
                ok(1, "n1", 4, 3, 200, 202),
                refused(1, "n1", 4, 4, 300, 302));

        assertThat(fence.check(history)).isEmpty();
    }

    @Test
    void anUnansweredWriteCannotHaveTakenEffectBeforeItWasSent() {
        History history = History.of(
                ok(1, "n1", 4, 1, 0, 2),
                refused(1, "n1", 4, 2, 5, 7),
                unknown(1, "n2", 6, 1, 10));

        assertThat(fence.check(history)).hasSize(1);
    }
}

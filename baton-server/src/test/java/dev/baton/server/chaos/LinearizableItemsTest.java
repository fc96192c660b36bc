package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.itemOk;
import static dev.baton.server.chaos.Events.itemRefused;
import static dev.baton.server.chaos.Events.itemUnknown;
import static dev.baton.server.chaos.Events.read;
import static dev.baton.server.chaos.Events.trial;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LinearizableItemsTest {

    private final Checker checker = new LinearizableItems();

    @Test
    void readsOfTheLastWriteAreLinearizable() {
        History history = History.of(
                itemOk(1, "t1-1", "a", 0, 2),
                itemOk(1, "t1-1", "b", 10, 12),
                read(1, "t1-1", "b", 20));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void aReadThatGoesBackToAnOlderValueIsCaught() {
        History history = History.of(
                itemOk(1, "t1-1", "a", 0, 2),
                itemOk(1, "t1-1", "b", 10, 12),
                read(1, "t1-1", "b", 20),
                read(1, "t1-1", "a", 30));

        assertThat(new AcknowledgedItemsReadable().check(history)).as("the last read alone").isNotEmpty();
        assertThat(checker.check(history)).singleElement().satisfies(violation -> {
            assertThat(violation.checker()).isEqualTo("items-linearizable");
            assertThat(violation.message()).startsWith("item t1-1: no order of its writes explains the read as 'a'");
        });
    }

    @Test
    void aValueSeenAndThenLostIsCaughtEvenWhenTheLastReadLooksFine() {
        History history = History.of(
                itemOk(1, "t1-1", "a", 0, 2),
                itemUnknown(1, "t1-1", "b", 5),
                read(1, "t1-1", "b", 20),
                read(1, "t1-1", "a", 30));

        assertThat(new AcknowledgedItemsReadable().check(history)).as("'a' could be last").isEmpty();
        assertThat(checker.check(history)).hasSize(1);
    }

    @Test
    void anUnansweredWriteMayExplainARead() {
        History history = History.of(
                itemOk(1, "t1-1", "a", 0, 2),
                itemUnknown(1, "t1-1", "b", 5),
                read(1, "t1-1", "b", 20));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void aRefusedWriteNeverExplainsARead() {
        History history = History.of(
                itemOk(1, "t1-1", "a", 0, 2),
                itemRefused(1, "t1-1", "b", 5, 6),
                read(1, "t1-1", "b", 20));

        assertThat(checker.check(history)).hasSize(1);
    }

    @Test
    void trialsThatMayLoseDataAreSkipped() {
        History history = History.of(
                trial(1, FaultKind.STORE_RESTART_EMPTY, 0, 100, 200, 150.0),
                itemOk(1, "t1-1", "a", 0, 2),
                read(1, "t1-1", null, 160));

        assertThat(checker.check(history)).isEmpty();
    }
}

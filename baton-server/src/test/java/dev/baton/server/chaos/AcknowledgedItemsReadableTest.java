package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.itemOk;
import static dev.baton.server.chaos.Events.itemRefused;
import static dev.baton.server.chaos.Events.itemUnknown;
import static dev.baton.server.chaos.Events.read;
import static dev.baton.server.chaos.Events.trial;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.server.chaos.HistoryEvent.ItemWrite;
import dev.baton.server.chaos.HistoryEvent.Outcome;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class AcknowledgedItemsReadableTest {

    private final Checker checker = new AcknowledgedItemsReadable();

    @Test
    void theLastAcknowledgedValueReadBackPasses() {
        History history = History.of(
                trial(1, FaultKind.KILL_NODE, 0, 1000, 5000, 1200.0),
                itemOk(1, "t1-1", "v1", 10, 20),
                itemOk(1, "t1-1", "v2", 30, 40),
                itemOk(1, "t1-2", "w1", 50, 60),
                read(1, "t1-1", "v2", 4000),
                read(1, "t1-2", "w1", 4000));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void anOlderAcknowledgedValueReadBackIsALostUpdate() {
        History history = History.of(
                trial(1, FaultKind.KILL_NODE, 0, 1000, 5000, 1200.0),
                itemOk(1, "t1-1", "v1", 10, 20),
                itemOk(1, "t1-1", "v2", 30, 40),
                read(1, "t1-1", "v1", 4000));

        assertThat(checker.check(history)).singleElement().satisfies(violation -> {
            assertThat(violation.checker()).isEqualTo("acknowledged-items-readable");
            assertThat(violation.trial()).isEqualTo(1);
            assertThat(violation.message()).isEqualTo("item t1-1: read as 'v1' at +4000.0 ms; last acknowledged value"
                    + " 'v2' (written through n1, sent at +30.0 ms, acknowledged at +40.0 ms); possible values: 'v2'");
        });
    }

    @Test
    void anAcknowledgedItemReadAsMissingOrNeverReadIsAViolation() {
        History history = History.of(
                trial(1, FaultKind.STORE_PAUSE, 0, 1000, 5000, 1200.0),
                itemOk(1, "t1-1", "v1", 10, 20),
                itemOk(1, "t1-2", "w1", 10, 20),
                read(1, "t1-1", null, 4000));

        assertThat(checker.check(history)).extracting(Violation::message).containsExactly(
                "item t1-1: read as missing at +4000.0 ms; last acknowledged value 'v1' (written through n1, sent at"
                        + " +10.0 ms, acknowledged at +20.0 ms)",
                "item t1-2: never read after healing; last acknowledged value 'w1' (written through n1, sent at"
                        + " +10.0 ms, acknowledged at +20.0 ms)");
    }

    @Test
    void aWriteConcurrentWithTheLastAcknowledgedOneMayWin() {
        History history = History.of(
                trial(1, FaultKind.NONE, 0, 0, 5000, 0.0),
                itemOk(1, "t1-1", "v1", 10, 50),
                itemOk(1, "t1-1", "v2", 30, 40),
                read(1, "t1-1", "v1", 4000));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void aWriteWithNoAnswerMayHaveLandedLast() {
        History history = History.of(
                trial(1, FaultKind.STORE_BLACKHOLE, 0, 1000, 5000, 1200.0),
                itemUnknown(1, "t1-1", "v0", 5),
                itemOk(1, "t1-1", "v1", 10, 20),
                itemUnknown(1, "t1-2", "w0", 5),
                read(1, "t1-1", "v0", 4000),
                read(1, "t1-2", null, 4000));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void aRefusedWriteMustNotShowUp() {
        History history = History.of(
                trial(1, FaultKind.PARTITION_ONE, 0, 1000, 5000, 1200.0),
                itemRefused(1, "t1-1", "v1", 10, 20),
                itemOk(1, "t1-2", "w1", 10, 20),
                itemRefused(1, "t1-2", "w2", 30, 40),
                read(1, "t1-1", "v1", 4000),
                read(1, "t1-2", "w2", 4000));

        assertThat(checker.check(history)).extracting(Violation::message).containsExactly(
                "item t1-1: read as 'v1' at +4000.0 ms, but no write of that value was acknowledged or left without an"
                        + " answer",
                "item t1-2: read as 'w2' at +4000.0 ms; last acknowledged value 'w1' (written through n1, sent at"
                        + " +10.0 ms, acknowledged at +20.0 ms); possible values: 'w1'");
    }

    @Test
    void theTrialsLastReadIsTheOneThatCounts() {
        History history = History.of(
                itemOk(1, "t1-1", "v1", 10, 20),
                read(1, "t1-1", "v1", 4000),
                read(1, "t1-1", null, 4500));

        assertThat(checker.check(history)).hasSize(1);
    }

    @Test
    void trialsThatCanLoseDataAreSkippedButCounted() {
        History history = History.of(
                trial(1, FaultKind.STORE_RESTART_EMPTY, 0, 1000, 5000, 1200.0),
                itemOk(1, "t1-1", "v1", 10, 20),
                read(1, "t1-1", null, 4000),
                trial(2, FaultKind.STORE_TRUNCATED_AOF, 6000, 7000, 9000, 7200.0),
                trial(3, FaultKind.KILL_NODE, 10_000, 11_000, 15_000, 11_200.0));

        assertThat(checker.check(history)).isEmpty();
        assertThat(AcknowledgedItemsReadable.skippedTrials(history)).isEqualTo(2);
    }

    /** Writes applied one at a time in a random order that respects real time; the final state must be accepted. */
    @Property(tries = 300)
    void anyLinearizableOutcomeIsAccepted(@ForAll("registerRuns") RegisterRun run) {
        assertThat(checker.check(run.history())).isEmpty();
    }

    /** A sequential run read back with the value of an acknowledged write that a later acknowledged one replaced. */
    @Property(tries = 200)
    void aValueOverwrittenBeforeTheLastAcknowledgedWriteWasSentIsRejected(@ForAll("sequentialRuns") List<ItemWrite> writes) {
        List<ItemWrite> acknowledged = writes.stream().filter(write -> write.outcome() == Outcome.OK).toList();
        if (acknowledged.size() < 2) {
            return;
        }
        ItemWrite replaced = acknowledged.get(0);
        List<HistoryEvent> events = new ArrayList<>(writes);
        events.add(read(1, "t1-1", replaced.value(), 100_000));

        assertThat(checker.check(History.of(events))).hasSize(1);
    }

    /** Writes of one item and the value a linearizable register could end with. */
    record RegisterRun(List<ItemWrite> writes, String finalValue) {
        History history() {
            List<HistoryEvent> events = new ArrayList<>(writes);
            events.add(new HistoryEvent.ItemRead(1, "t1-1", finalValue, Events.ms(100_000)));
            return History.of(events);
        }
    }

    @Provide
    Arbitrary<RegisterRun> registerRuns() {
        // Each write takes effect at some instant inside [sent, answered] (unknown: at any instant from sent on, or
        // never). The register ends with the value of the write that took effect last.
        Arbitrary<long[]> timing = Combinators.combine(
                Arbitraries.longs().between(0, 60), Arbitraries.longs().between(0, 20),
                Arbitraries.longs().between(0, 100), Arbitraries.integers().between(0, 3))
                .as((sent, length, effectPercent, outcome) -> new long[] {sent, length, effectPercent, outcome});
        return timing.list().ofMinSize(1).ofMaxSize(8).map(timings -> {
            List<ItemWrite> writes = new ArrayList<>();
            String last = null;
            double lastEffect = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < timings.size(); i++) {
                long[] t = timings.get(i);
                long sent = t[0];
                long answered = sent + t[1];
                String value = "v" + i;
                Outcome outcome = t[3] == 0 ? Outcome.REFUSED : t[3] == 1 ? Outcome.UNKNOWN : Outcome.OK;
                writes.add(new ItemWrite(1, "n1", "t1-1", value, Events.ms(sent),
                        outcome == Outcome.UNKNOWN ? null : Events.ms(answered), outcome));
                boolean applied = outcome == Outcome.OK || (outcome == Outcome.UNKNOWN && t[2] % 2 == 0);
                double effect = outcome == Outcome.UNKNOWN ? sent + t[2] : sent + t[1] * t[2] / 100.0;
                if (applied && effect >= lastEffect) {
                    last = value;
                    lastEffect = effect;
                }
            }
            return new RegisterRun(writes, last);
        });
    }

    @Provide
    Arbitrary<List<ItemWrite>> sequentialRuns() {
        return Arbitraries.of(Outcome.class).list().ofMinSize(2).ofMaxSize(8).map(outcomes -> {
            List<ItemWrite> writes = new ArrayList<>();
            for (int i = 0; i < outcomes.size(); i++) {
                Outcome outcome = outcomes.get(i) == Outcome.UNKNOWN ? Outcome.REFUSED : outcomes.get(i);
                writes.add(new ItemWrite(1, "n1", "t1-1", "v" + i, Events.ms(i * 10), Events.ms(i * 10 + 5), outcome));
            }
            return writes;
        });
    }
}

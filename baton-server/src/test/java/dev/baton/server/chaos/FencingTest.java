package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.ok;
import static dev.baton.server.chaos.Events.refused;
import static dev.baton.server.chaos.Events.trial;
import static dev.baton.server.chaos.Events.unknown;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.server.chaos.HistoryEvent.Outcome;
import dev.baton.server.chaos.HistoryEvent.Write;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class FencingTest {

    private final Checker checker = new Fencing();

    @Test
    void writesUnderRisingTermsPass() {
        History history = History.of(
                ok(1, "n1", 4, 1, 0, 2),
                ok(1, "n1", 4, 2, 3, 5),
                ok(1, "n2", 5, 1, 10, 12),
                ok(1, "n2", 5, 2, 13, 15));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void aStaleWriteAcceptedAfterANewerOneIsAViolationNamingBoth() {
        History history = History.of(
                trial(2, FaultKind.PAUSE_NODE, 0, 3000, 6000, 3100.0),
                ok(2, "n1", 4, 16, 100, 102),
                ok(2, "n2", 5, 1, 2000, 2004),
                ok(2, "n1", 4, 17, 3050, 3052));

        assertThat(checker.check(history)).singleElement().satisfies(violation -> {
            assertThat(violation.checker()).isEqualTo("fencing");
            assertThat(violation.trial()).isEqualTo(2);
            assertThat(violation.message()).isEqualTo("write 17 by n1 under term 4 (sent at trial 2 +3050.0 ms) was"
                    + " accepted after write 1 by n2 under term 5 had been acknowledged (at trial 2 +2004.0 ms)");
        });
    }

    @Test
    void staleWritesThatWereRefusedOrUnansweredDoNotCount() {
        History history = History.of(
                ok(2, "n2", 5, 1, 2000, 2004),
                refused(2, "n1", 4, 17, 3050, 3052),
                unknown(2, "n1", 4, 18, 3060));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void overlappingWritesMayLandInEitherOrder() {
        // The term-4 write was sent before the term-5 write was answered: the resource may have taken it first.
        History history = History.of(
                ok(2, "n2", 5, 1, 2000, 2004),
                ok(2, "n1", 4, 17, 2003, 2010));

        assertThat(checker.check(history)).isEmpty();
    }

    @Property(tries = 300)
    void findsExactlyTheWritesThatTheDefinitionFlags(@ForAll("writes") List<Write> writes) {
        List<Violation> violations = checker.check(History.of(writes));

        List<Write> flagged = new ArrayList<>();
        for (Write later : writes) {
            for (Write earlier : writes) {
                if (later.outcome() == Outcome.OK && earlier.outcome() == Outcome.OK
                        && earlier.answered() < later.sent() && later.term() < earlier.term()) {
                    flagged.add(later);
                    break;
                }
            }
        }
        assertThat(violations).hasSize(flagged.size());
    }

    @Provide
    Arbitrary<List<Write>> writes() {
        Arbitrary<Write> one = Combinators.combine(
                Arbitraries.longs().between(1, 8),
                Arbitraries.longs().between(0, 100),
                Arbitraries.longs().between(0, 15),
                Arbitraries.of(Outcome.class))
                .as((term, sent, wait, outcome) -> new Write(1, "n" + term % 3, term, sent, sent,
                        outcome == Outcome.UNKNOWN ? null : sent + wait, outcome));
        return one.list().ofMaxSize(25);
    }
}

package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.acquired;
import static dev.baton.server.chaos.Events.trial;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.server.chaos.HistoryEvent.Acquired;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class TermsRiseTest {

    private final Checker checker = new TermsRise();

    @Test
    void termsThatRiseWithTimePass() {
        History history = History.of(
                acquired(1, "n1", 1, 0, 5),
                acquired(1, "n2", 2, 10, 20),
                acquired(2, "n1", 3, 2000, 2010));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void aLowerTermAskedForAfterAHigherOneWasGrantedIsAViolation() {
        History history = History.of(
                trial(4, FaultKind.STORE_RESTORE_SNAPSHOT, 1000, 2000, 6000, 2500.0),
                acquired(3, "n1", 9, 0, 5),
                acquired(4, "n2", 4, 2100, 2150));

        assertThat(checker.check(history)).singleElement().satisfies(violation -> {
            assertThat(violation.checker()).isEqualTo("terms-rise");
            assertThat(violation.trial()).isEqualTo(4);
            assertThat(violation.message()).isEqualTo("n2 acquired term 4 (asked at trial 4 +1100.0 ms) after n1 had"
                    + " already acquired term 9 (at trial 3 +0.0 ms)");
        });
    }

    @Test
    void theSameTermAgainIsAViolationToo() {
        History history = History.of(
                acquired(1, "n1", 9, 0, 5),
                acquired(1, "n1", 9, 100, 110));

        assertThat(checker.check(history)).hasSize(1);
    }

    @Test
    void overlappingAcquisitionsMayComeInEitherOrder() {
        // n2 asked (at 3 ms) before n1 knew it had won (at 5 ms): the store may have granted n2's term first.
        History history = History.of(
                acquired(1, "n1", 9, 0, 5),
                acquired(1, "n2", 8, 3, 40));

        assertThat(checker.check(history)).isEmpty();
    }

    @Property(tries = 300)
    void findsExactlyTheAcquisitionsThatTheDefinitionFlags(@ForAll("acquisitions") List<Acquired> acquisitions) {
        List<Violation> violations = checker.check(History.of(acquisitions));

        List<Acquired> flagged = new ArrayList<>();
        for (Acquired later : acquisitions) {
            for (Acquired earlier : acquisitions) {
                if (earlier.mono() < later.since() && later.term() <= earlier.term()) {
                    flagged.add(later);
                    break;
                }
            }
        }
        assertThat(violations).hasSize(flagged.size());
    }

    @Provide
    Arbitrary<List<Acquired>> acquisitions() {
        Arbitrary<Acquired> one = Combinators.combine(
                Arbitraries.of("n1", "n2", "n3"),
                Arbitraries.longs().between(1, 12),
                Arbitraries.longs().between(0, 100),
                Arbitraries.longs().between(0, 20))
                .as((node, term, since, wait) -> new Acquired(1, node, term, since, since + wait));
        return one.list().ofMaxSize(25);
    }
}

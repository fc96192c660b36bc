package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.acquired;
import static dev.baton.server.chaos.Events.crash;
import static dev.baton.server.chaos.Events.lost;
import static dev.baton.server.chaos.Events.ms;
import static dev.baton.server.chaos.Events.pause;
import static dev.baton.server.chaos.Events.trial;
import static dev.baton.server.chaos.Events.validUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.baton.server.chaos.Exclusion.End;
import dev.baton.server.chaos.Exclusion.Validity;
import org.junit.jupiter.api.Test;

class ExclusionTest {

    private final Checker checker = new Exclusion();

    @Test
    void aPausedLeaderStillValidWhenAHigherTermIsAcquiredIsCaught() {
        History history = History.of(
                trial(2, FaultKind.PAUSE_NODE, 0, 4000, 6000, 4100.0),
                validUntil(2, "n1", 5, 3000, 9),
                acquired(2, "n1", 5, 5, 10),
                pause(2, "n1", 100, 4000),
                acquired(2, "n2", 6, 1900, 2000),
                validUntil(2, "n2", 6, 4900, 1990),
                lost(2, "n1", 5, 4010));

        assertThat(checker.check(history)).singleElement().satisfies(violation -> {
            assertThat(violation.checker()).isEqualTo("exclusion");
            assertThat(violation.trial()).isEqualTo(2);
            assertThat(violation.message()).isEqualTo("n1 (term 5) and n2 (term 6) both counted themselves leader"
                    + " for 1000.0 ms: n1 from trial 2 +10.0 ms to trial 2 +3000.0 ms (deadline),"
                    + " n2 from trial 2 +2000.0 ms to trial 2 +4900.0 ms (deadline)");
        });
    }

    @Test
    void leadersBackToBackWithAGapPass() {
        History history = History.of(
                validUntil(1, "n1", 5, 1000, 9),
                acquired(1, "n1", 5, 5, 10),
                lost(1, "n1", 5, 900),
                validUntil(1, "n2", 6, 2000, 949),
                acquired(1, "n2", 6, 940, 950),
                crash(1, "n2", 1500),
                acquired(1, "n3", 7, 1510, 1520));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void theDeadlineEndsTheIntervalEvenWhenTheLossIsNoticedLater() {
        History history = History.of(
                validUntil(1, "n1", 5, 1000, 9),
                acquired(1, "n1", 5, 5, 10),
                acquired(1, "n2", 6, 1100, 1200),
                lost(1, "n1", 5, 3000));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void aRenewalExtendsTheInterval() {
        History history = History.of(
                validUntil(1, "n1", 5, 1000, 9),
                acquired(1, "n1", 5, 5, 10),
                validUntil(1, "n1", 5, 1500, 800),
                acquired(1, "n2", 6, 1100, 1200),
                lost(1, "n1", 5, 3000));

        assertThat(checker.check(history)).singleElement().satisfies(violation -> assertThat(violation.message())
                .startsWith("n1 (term 5) and n2 (term 6) both counted themselves leader for 300.0 ms:")
                .contains("n1 from trial 1 +1.0 ms to trial 1 +1491.0 ms (deadline)"));
    }

    @Test
    void aCrashEndsTheInterval() {
        History history = History.of(
                validUntil(1, "n1", 5, 5000, 9),
                acquired(1, "n1", 5, 5, 10),
                crash(1, "n1", 1000),
                acquired(1, "n2", 6, 1050, 1100));

        assertThat(checker.check(history)).isEmpty();
        assertThat(Exclusion.intervals(history)).first().satisfies(validity -> {
            assertThat(validity.until()).isEqualTo(ms(1000));
            assertThat(validity.end()).isEqualTo(End.CRASH);
        });
    }

    @Test
    void aLostEndsTheInterval() {
        History history = History.of(
                validUntil(1, "n1", 5, 5000, 9),
                acquired(1, "n1", 5, 5, 10),
                lost(1, "n1", 5, 1000),
                acquired(1, "n2", 6, 1050, 1100));

        assertThat(checker.check(history)).isEmpty();
        assertThat(Exclusion.intervals(history)).first().satisfies(validity -> {
            assertThat(validity.until()).isEqualTo(ms(1000));
            assertThat(validity.end()).isEqualTo(End.LOST);
        });
    }

    @Test
    void aTermWithoutARecordedDeadlineEndsAtItsLostAndTheViolationSaysSo() {
        History history = History.of(
                acquired(1, "n1", 5, 5, 10),
                acquired(1, "n2", 6, 1900, 2000),
                lost(1, "n1", 5, 3000));

        assertThat(checker.check(history)).singleElement().satisfies(violation -> assertThat(violation.message())
                .isEqualTo("n1 (term 5) and n2 (term 6) both counted themselves leader for 1000.0 ms:"
                        + " n1 from trial 1 +0.0 ms to trial 1 +2990.0 ms (lost, no deadline recorded),"
                        + " n2 from trial 1 +1990.0 ms to trial 1 +2990.0 ms"
                        + " (still valid when the history ends, no deadline recorded)"));
    }

    @Test
    void aLeaderWithoutALocalDeadlineStaysValidUntilItLearnsItLost() {
        double aDay = 86_400_000;
        History history = History.of(
                validUntil(1, "n1", 5, aDay, 9),
                acquired(1, "n1", 5, 5, 10),
                validUntil(1, "n1", 5, aDay + 500, 500),
                validUntil(1, "n2", 6, 2900, 1999),
                acquired(1, "n2", 6, 1900, 2000),
                lost(1, "n1", 5, 2500));

        assertThat(checker.check(history)).singleElement().satisfies(violation -> assertThat(violation.message())
                .startsWith("n1 (term 5) and n2 (term 6) both counted themselves leader for 500.0 ms:"));
    }

    @Test
    void aNodeThatLeadsTwoTermsAtOnceIsNotTwoLeaders() {
        History history = History.of(
                validUntil(1, "n1", 5, 3000, 9),
                acquired(1, "n1", 5, 5, 10),
                validUntil(1, "n1", 6, 4000, 999),
                acquired(1, "n1", 6, 900, 1000),
                lost(1, "n1", 5, 1100));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void aDeadlineOfAnEarlierProcessDoesNotExtendTheNextOne() {
        History history = History.of(
                validUntil(1, "n1", 5, 9000, 9),
                acquired(1, "n1", 5, 5, 10),
                crash(1, "n1", 100),
                // The restarted process acquires term 5 again (one-holder-per-term's business) but records nothing.
                acquired(2, "n1", 5, 150, 200),
                lost(2, "n1", 5, 1000));

        assertThat(Exclusion.intervals(history)).extracting(Validity::until, Validity::end).containsExactly(
                tuple(ms(100), End.CRASH),
                tuple(ms(1000), End.LOST));
        assertThat(Exclusion.intervals(history).get(1).deadlineRecorded()).isFalse();
    }

    @Test
    void anOverlapBeginningInATrialWhoseStoreCanForgetAGrantIsNotChecked() {
        History history = History.of(
                trial(1, FaultKind.STORE_RESTART_EMPTY, 0, 1000, 2000, 1000.0),
                trial(2, FaultKind.PAUSE_NODE, 3000, 6000, 7000, 6000.0),
                validUntil(1, "n1", 5, 1500, 9),
                acquired(1, "n1", 5, 5, 10),
                acquired(1, "n2", 6, 1190, 1200),
                lost(1, "n1", 5, 1300),
                validUntil(2, "n2", 6, 5000, 3000),
                acquired(2, "n3", 7, 4800, 4900));

        assertThat(checker.check(history)).singleElement().satisfies(violation -> {
            assertThat(violation.trial()).isEqualTo(2);
            assertThat(violation.message()).startsWith("n2 (term 6) and n3 (term 7) both counted themselves leader"
                    + " for 100.0 ms:");
        });
    }

    @Test
    void anOverlapInATrialThatBreaksAnAssumptionIsExpectedNotASafetyViolation() {
        History history = History.of(
                trial(1, FaultKind.STORE_CLOCK_STEP_LARGE, 0, 1000, 2000, 1000.0),
                trial(2, FaultKind.STORE_CLOCK_STEP_SMALL, 3000, 6000, 7000, 6000.0),
                validUntil(1, "n1", 5, 1500, 9),
                acquired(1, "n1", 5, 5, 10),
                acquired(1, "n2", 6, 1190, 1200),
                lost(1, "n1", 5, 1300),
                validUntil(2, "n2", 6, 5000, 3000),
                acquired(2, "n3", 7, 4800, 4900));
        Checker expected = Exclusion.whereAnAssumptionIsBroken();

        assertThat(checker.check(history)).singleElement().satisfies(violation -> {
            assertThat(violation.trial()).isEqualTo(2);
            assertThat(violation.message()).startsWith("n2 (term 6) and n3 (term 7)");
        });
        assertThat(expected.name()).isEqualTo("exclusion-assumption-broken");
        assertThat(expected.kind()).isEqualTo(Checker.Kind.EXPECTED);
        assertThat(expected.safety()).isFalse();
        assertThat(expected.check(history)).singleElement().satisfies(violation -> {
            assertThat(violation.checker()).isEqualTo("exclusion-assumption-broken");
            assertThat(violation.trial()).isEqualTo(1);
            assertThat(violation.message()).startsWith("n1 (term 5) and n2 (term 6) both counted themselves leader"
                    + " for 100.0 ms:");
        });
    }

    @Test
    void onBullyAnOverlapWithinTheDocumentedBoundIsToleratedAndALongerOneIsNot() {
        // The fast profile's leadershipValidity: 750 ms.
        Checker bully = Exclusion.forBackend("bully");
        History within = History.of(
                validUntil(1, "n1", 5, 1000, 9),
                acquired(1, "n1", 5, 5, 10),
                acquired(1, "n2", 6, 790, 800),
                lost(1, "n1", 5, 900));
        History beyond = History.of(
                acquired(1, "n1", 5, 5, 10),
                acquired(1, "n2", 6, 790, 800),
                lost(1, "n1", 5, 1600));

        assertThat(bully.check(within)).isEmpty();
        assertThat(Exclusion.forBackend("quorum").check(within)).hasSize(1);
        assertThat(bully.check(beyond)).singleElement().satisfies(violation -> assertThat(violation.message())
                .startsWith("n1 (term 5) and n2 (term 6) both counted themselves leader for 800.0 ms"
                        + " (the backend documents at most 750.0 ms):"));
    }

    @Test
    void everyOverlappingPairIsOneViolation() {
        History history = History.of(
                acquired(1, "n1", 5, 5, 10),
                acquired(1, "n2", 6, 100, 200),
                acquired(1, "n3", 7, 300, 400),
                lost(1, "n1", 5, 1000),
                lost(1, "n2", 6, 1000),
                lost(1, "n3", 7, 1000));

        assertThat(checker.check(history)).hasSize(3);
    }
}

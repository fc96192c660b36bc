package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The fault a trial draws comes from its own {@code Random(seed, trial)}: over a long run every fault must be drawn
 * about as often as the others, whatever the number of faults. Seeding {@code java.util.Random} with neighbouring
 * values directly drew 2 of 8 faults over 1,000 trials (199 and 801).
 */
class TrialRandomTest {

    @ParameterizedTest(name = "{0} faults, seed {1}")
    @CsvSource({"8, 1128", "8, 1", "16, 42", "6, 1124", "14, 7", "5, 20261124", "2, 3"})
    void everyFaultIsDrawnAboutEquallyOften(int faults, long seed) {
        int trials = 1000;
        int[] drawn = new int[faults];
        for (int trial = 1; trial <= trials; trial++) {
            drawn[ChaosRun.trialRandom(seed, trial).nextInt(faults)]++;
        }
        double expected = (double) trials / faults;
        for (int count : drawn) {
            // Binomial(1000, 1/faults): five standard deviations either way.
            double sd = Math.sqrt(trials * (1.0 / faults) * (1 - 1.0 / faults));
            assertThat((double) count).isBetween(expected - 5 * sd, expected + 5 * sd);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @CsvSource({"1128", "42"})
    void aTrialsDrawsAreTheSameEachTime(long seed) {
        assertThat(ChaosRun.trialRandom(seed, 17).nextLong()).isEqualTo(ChaosRun.trialRandom(seed, 17).nextLong())
                .isNotEqualTo(ChaosRun.trialRandom(seed, 18).nextLong());
    }
}

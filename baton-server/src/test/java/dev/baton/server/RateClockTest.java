package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.time.Clock;
import org.junit.jupiter.api.Test;

/** {@code --clock-rate}: the node's clock runs at the rate from its start, and its readings map back to real time. */
class RateClockTest {

    @Test
    void rateOneIsTheSystemClock() {
        assertThat(RateClock.of(1.0)).isSameAs(Clock.system());
        assertThat(RateClock.toReal(Clock.system(), 12_345)).isEqualTo(12_345);
    }

    @Test
    void aFastClockGainsOnTheRealOneAndItsReadingsMapBack() {
        RateClock fast = new RateClock(1.1);
        long realBefore = System.nanoTime();
        long node = fast.nanoTime();
        long realAfter = System.nanoTime();

        long real = fast.toReal(node);

        assertThat(real).isBetween(realBefore - 1, realAfter + 1);
        assertThat(fast.toReal(fast.nanoTime() + 1_100_000_000L) - fast.toReal(fast.nanoTime()))
                .as("1.1 s on the fast clock is about 1 s of real time")
                .isBetween(999_000_000L, 1_001_000_000L);
    }
}

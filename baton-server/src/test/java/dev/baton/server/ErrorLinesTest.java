package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testkit.FakeClock;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ErrorLinesTest {

    private final FakeClock clock = new FakeClock();
    private final ErrorLines errors = new ErrorLines(clock, Duration.ofSeconds(10));

    @Test
    void aStoreDownForAMinuteGivesAFewLinesPerKindNotOnePerFailure() {
        int printed = 0;
        // Three kinds failing twelve times a second for 60 s, the terms in the messages changing as they go.
        for (int tick = 0; tick < 720; tick++) {
            for (String kind : new String[] {"renewing the lease of term %d failed", "checking the lease failed",
                "heartbeat %d of the registration failed"}) {
                if (errors.admit(String.format(kind, tick / 100)).isPresent()) {
                    printed++;
                }
            }
            clock.advance(Duration.ofMillis(1000 / 12));
        }

        assertThat(printed).isLessThanOrEqualTo(3 * (1 + 60 / 10)).isGreaterThanOrEqualTo(3);
    }

    @Test
    void aPrintedLineSaysHowManyOfItsKindWereLeftOut() {
        assertThat(errors.admit("renewing the lease of term 7 failed")).isEqualTo(OptionalInt.of(0));
        assertThat(errors.admit("renewing the lease of term 8 failed")).isEmpty();
        assertThat(errors.admit("renewing the lease of term 8 failed")).isEmpty();
        assertThat(errors.admit("an unrelated failure")).isEqualTo(OptionalInt.of(0));

        clock.advance(Duration.ofSeconds(10));

        assertThat(errors.admit("renewing the lease of term 9 failed")).isEqualTo(OptionalInt.of(2));
        assertThat(errors.admit("renewing the lease of term 9 failed")).isEmpty();
    }
}

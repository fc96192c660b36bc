package dev.baton.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testkit.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The outage log: first failure of each kind in full, one summary per interval, one recovery line. */
class FailureLogTest {

    private final FakeClock clock = new FakeClock();
    private final List<String> lines = new ArrayList<>();
    private final FailureLog log = new FailureLog("[orders] ", "store", clock, Duration.ofSeconds(10),
            new FailureLog.Lines() {
                @Override
                public void warn(String line) {
                    lines.add("WARN " + line);
                }

                @Override
                public void info(String line) {
                    lines.add("INFO " + line);
                }
            });

    @Test
    void aLongOutageIsFirstLinesPerKindThenOneSummaryPerIntervalThenOneRecovery() {
        int seconds = 95;
        for (int tenth = 0; tenth < seconds * 10; tenth++) { // three kinds failing thirty times a second
            log.failure("renew", "renewing the lease of term 3 failed: connection refused");
            log.failure("check", "acquiring the lease failed: connection refused");
            log.failure("register", "registering this process failed: connection refused");
            clock.advance(Duration.ofMillis(100));
        }
        log.success();

        assertThat(lines).hasSize(3 + seconds / 10 + 1);
        assertThat(lines.get(0)).isEqualTo("WARN [orders] renewing the lease of term 3 failed: connection refused"
                + " (while the store keeps failing, one summary line every 10 s)");
        assertThat(lines.get(1)).isEqualTo("WARN [orders] acquiring the lease failed: connection refused");
        assertThat(lines.get(3)).isEqualTo("WARN [orders] store still unreachable: 298 failed calls (renew 100, check"
                + " 99, register 99) in the last 10 s; last error: renewing the lease of term 3 failed: connection"
                + " refused");
        assertThat(lines.get(lines.size() - 1)).isEqualTo("INFO [orders] store reachable again after 95 s; 2850 calls"
                + " failed meanwhile");
    }

    @Test
    void successWithoutAnOutageWritesNothingAndTheNextOutageStartsAfresh() {
        log.success();
        log.failure("renew", "first");
        log.failure("renew", "second");
        log.success();
        log.failure("renew", "third");

        assertThat(lines).containsExactly(
                "WARN [orders] first (while the store keeps failing, one summary line every 10 s)",
                "INFO [orders] store reachable again after 0 s; 2 calls failed meanwhile",
                "WARN [orders] third (while the store keeps failing, one summary line every 10 s)");
    }

    @Test
    void theIntervalMustBePositive() {
        assertThatThrownBy(() -> new FailureLog("", "store", clock, Duration.ZERO, FailureLog.Lines.of(null)))
                .hasMessage("interval must be positive, was PT0S");
    }
}

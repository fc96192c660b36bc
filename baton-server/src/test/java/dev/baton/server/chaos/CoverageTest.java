package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.acquired;
import static dev.baton.server.chaos.Events.crash;
import static dev.baton.server.chaos.Events.fault;
import static dev.baton.server.chaos.Events.lost;
import static dev.baton.server.chaos.Events.ms;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CoverageTest {

    @Test
    void countsTheTrialsWhoseFaultMetAnAcquireAHandOverOrARenewal() {
        History history = History.of(
                acquired(0, "n1", 1, 0, 10),
                // Trial 1: the fault starts while n2's acquire is in flight, after n1 crashed: a hand-over too.
                crash(1, "n1", 1000),
                fault(1, FaultKind.STORE_LATENCY, null, 1500, 2500),
                acquired(1, "n2", 2, 1400, 1600),
                // Trial 2: only a renewal of n2's term answers while the fault is on.
                new HistoryEvent.ValidUntil(2, "n2", 2, ms(2000), ms(1600)),
                new HistoryEvent.ValidUntil(2, "n2", 2, ms(6000), ms(4200)),
                fault(2, FaultKind.PAUSE_NODE, "n3", 4000, 4500),
                // Trial 3: nothing happens while the fault is on.
                fault(3, FaultKind.PAUSE_NODE, "n3", 7000, 7100),
                lost(3, "n2", 2, 9000));

        Coverage.Counts counts = Coverage.of(history);

        assertThat(counts).isEqualTo(new Coverage.Counts(3, 1, 1, 1, 2));
        assertThat(counts.line()).isEqualTo("Fault coverage: of 3 trials with a fault, 1 were active while an acquire"
                + " was in flight, 1 during a hand-over, 1 during a renewal; 2 (67 %) during at least one.");
    }

    @Test
    void aRunWithoutFaultsSaysSo() {
        assertThat(Coverage.of(History.of(acquired(0, "n1", 1, 0, 10))).line())
                .isEqualTo("Fault coverage: no trial injected a fault.");
    }
}

package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code --chaos-hooks}: each deadline the election gives a leadership becomes a {@code valid-until} line, on real
 * time whatever the node's clock rate, and every metric still reaches the node's own metrics.
 */
class ChaosValidityTest {

    private static final long SECOND = 1_000_000_000L;

    private final List<ObjectNode> printed = new ArrayList<>();
    private final List<String> delegated = new ArrayList<>();
    private final ElectionMetrics own = new ElectionMetrics() {
        @Override
        public void storeCall(String operation, long nanos, boolean succeeded) {
            delegated.add("storeCall " + operation);
        }

        @Override
        public void leaseRenewed(long latencyNanos, long marginNanos) {
            delegated.add("leaseRenewed " + marginNanos);
        }

        @Override
        public void validUntil(long term, long deadlineNanos) {
            delegated.add("validUntil " + term + " " + deadlineNanos);
        }
    };

    @Test
    void aDeadlineIsPrintedAsAValidUntilLineOnTheRealClock() {
        ChaosValidity metrics = new ChaosValidity(own, Clock.system(), new EventJson("n1"), printed::add);
        long before = System.nanoTime();
        long deadline = Clock.system().nanoTime() + 2 * SECOND;

        metrics.validUntil(7, deadline);

        assertThat(printed).singleElement().satisfies(line -> {
            assertThat(line.fieldNames()).toIterable()
                    .containsExactly("event", "node", "term", "deadline", "mono", "ts");
            assertThat(line.path("event").asText()).isEqualTo("valid-until");
            assertThat(line.path("node").asText()).isEqualTo("n1");
            assertThat(line.path("term").asLong()).isEqualTo(7);
            assertThat(line.path("deadline").asLong()).isEqualTo(deadline);
            assertThat(line.path("mono").asLong()).isBetween(before, System.nanoTime());
        });
        assertThat(delegated).containsExactly("validUntil 7 " + deadline);
    }

    @Test
    void aNodeOnAFastClockHasItsDeadlineMappedBackToRealTime() {
        RateClock doubleSpeed = new RateClock(2.0);
        ChaosValidity metrics = new ChaosValidity(own, doubleSpeed, new EventJson("n1"), printed::add);
        long realBefore = System.nanoTime();
        long reading = doubleSpeed.nanoTime();
        long realAfter = System.nanoTime();

        metrics.validUntil(7, reading + 2 * SECOND);

        assertThat(printed).singleElement().satisfies(line -> assertThat(line.path("deadline").asLong())
                .as("2 s ahead on a clock at twice the rate is 1 s ahead in real time")
                .isBetween(realBefore + SECOND - 1, realAfter + SECOND + 1));
        assertThat(delegated).as("the node's own metrics get the node's reading")
                .containsExactly("validUntil 7 " + (reading + 2 * SECOND));
    }

    @Test
    void storeCallsAndRenewalsGoToTheNodesOwnMetricsAndPrintNothing() {
        ChaosValidity metrics = new ChaosValidity(own, Clock.system(), new EventJson("n1"), printed::add);

        metrics.storeCall("renew", 5, true);
        metrics.leaseRenewed(5, 42);

        assertThat(printed).isEmpty();
        assertThat(delegated).containsExactly("storeCall renew", "leaseRenewed 42");
    }
}

package dev.baton.bench.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Latency tables a scenario shows reach the report's findings without the scenario knowing. */
class FindingsTest {

    private static Summary millis(long... values) {
        long[] nanos = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            nanos[i] = values[i] * 1_000_000;
        }
        return Summary.of(nanos);
    }

    @Test
    void aRenderedTableIsRecordedOnceUnderTheSectionItAppearedIn() {
        try (Findings findings = Findings.open()) {
            String[] section = {"Handover, held"};
            findings.beginRun("handover-redis", () -> section[0]);
            LatencyReport report = new LatencyReport().add("Baton close()", millis(1, 2, 3), "")
                    .add("Redisson RLock", millis(2, 3, 4), "");
            report.table();
            report.table();
            section[0] = "Handover, released at once";
            new LatencyReport().add("Baton close()", millis(5), "").table();

            assertThat(findings.series("handover-redis"))
                    .extracting(Findings.Series::section, Findings.Series::candidate)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("Handover, held", "Baton close()"),
                            org.assertj.core.groups.Tuple.tuple("Handover, held", "Redisson RLock"),
                            org.assertj.core.groups.Tuple.tuple("Handover, released at once", "Baton close()"));
            assertThat(findings.series("other")).isEmpty();
        }
    }

    @Test
    void withoutOpenFindingsScenariosRunAsBefore() {
        new LatencyReport().add("x", millis(1), "").table();
        Findings.record("y", millis(2));
        Findings.fact("z", 3);
        try (Findings findings = Findings.open()) {
            findings.beginRun("r", () -> "");
            assertThat(findings.series("r")).isEmpty();
            Findings.fact("sent", 7);
            assertThat(findings.fact("r", "sent")).isEqualTo(7.0);
            assertThat(findings.fact("r", "received")).isNull();
        }
    }

    @Test
    void onlyOneCollectionAtATime() {
        try (Findings findings = Findings.open()) {
            assertThatThrownBy(Findings::open).isInstanceOf(IllegalStateException.class);
        }
        Findings.open().close();
    }

    @Test
    void aSummaryKeepsItsSamplesForTheCurve() {
        Summary s = millis(4, 1, 3, 2);
        assertThat(s.hasSamples()).isTrue();
        assertThat(s.quantile(0)).isEqualTo(1_000_000);
        assertThat(s.quantile(0.5)).isEqualTo(2_000_000);
        assertThat(s.quantile(1)).isEqualTo(4_000_000);
        Summary fromPercentiles = new Summary(10, 1, 2, 3, 4, 2.5);
        assertThat(fromPercentiles.hasSamples()).isFalse();
        assertThatThrownBy(() -> fromPercentiles.quantile(0.5)).isInstanceOf(IllegalStateException.class);
        assertThat(fromPercentiles).isEqualTo(new Summary(10, 1, 2, 3, 4, 2.5));
    }
}

package dev.baton.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The margin a configuration keeps when it is varied: set margins stay, derived ones follow the new TTL. */
class ElectionConfigTest {

    @Test
    void aVariationWithAnotherTtlDerivesItsOwnDefaultMargin() {
        ElectionConfig fast = ElectionConfig.fast();
        assertThat(fast.safetyMargin()).isEqualTo(Duration.ofMillis(150));

        ElectionConfig longer = fast.toBuilder().leaseTtl(Duration.ofSeconds(30)).build();

        assertThat(longer.safetyMargin()).as("5 %% of the new TTL, as a fresh builder would give")
                .isEqualTo(ElectionConfig.builder().leaseTtl(Duration.ofSeconds(30)).build().safetyMargin())
                .isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void aMarginThatWasSetStaysSet() {
        ElectionConfig set = ElectionConfig.fast().toBuilder().safetyMargin(Duration.ofMillis(400)).build();

        ElectionConfig longer = set.toBuilder().leaseTtl(Duration.ofSeconds(30)).build();

        assertThat(longer.safetyMargin()).isEqualTo(Duration.ofMillis(400));
    }

    @Test
    void anUnchangedVariationIsEqualInEveryTiming() {
        ElectionConfig fast = ElectionConfig.fast();

        assertThat(fast.toBuilder().build()).hasToString(fast.toString());
    }
}

package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class DurationConverterTest {

    @Test
    void readsTheShortFormsPeopleType() {
        assertThat(DurationConverter.parse("100ms")).isEqualTo(Duration.ofMillis(100));
        assertThat(DurationConverter.parse("3s")).isEqualTo(Duration.ofSeconds(3));
        assertThat(DurationConverter.parse("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(DurationConverter.parse("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(DurationConverter.parse(" 3S ")).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void readsIso8601() {
        assertThat(DurationConverter.parse("PT3S")).isEqualTo(Duration.ofSeconds(3));
        assertThat(DurationConverter.parse("pt0.25s")).isEqualTo(Duration.ofMillis(250));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "3", "3x", "s", "-1s", "1.5s", "PT", "PTXS", "99999999999999999999ms", "PT-3S"})
    void refusesAnythingElseWithAMessageShowingTheAcceptedForms(String text) {
        assertThatThrownBy(() -> DurationConverter.parse(text))
                .isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessageContaining("'" + text + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"99999999999h", "169h", "PT2562047788015215H", "8d", "99999999999999999999ms"})
    void refusesDurationsLongerThanAWeekNamingTheRange(String text) {
        assertThatThrownBy(() -> DurationConverter.parse(text.equals("8d") ? "P8D" : text))
                .isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessageContaining("out of range").hasMessageContaining("from 0 to 168h");
    }

    @Test
    void aWeekIsTheLongestAccepted() {
        assertThat(DurationConverter.parse("168h")).isEqualTo(DurationConverter.MAX);
    }
}

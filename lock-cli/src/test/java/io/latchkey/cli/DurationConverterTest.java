package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

class DurationConverterTest {
    @Test
    void parsesUnitsCombinationsAndIso() {
        assertThat(DurationConverter.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationConverter.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(DurationConverter.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(DurationConverter.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(DurationConverter.parse("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(DurationConverter.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(DurationConverter.parse(" 1H ")).isEqualTo(Duration.ofHours(1));
        assertThat(DurationConverter.parse("PT10S")).isEqualTo(Duration.ofSeconds(10));
        assertThat(DurationConverter.parse("0s")).isEqualTo(Duration.ZERO);
        // the SPI's grammar (issue 13): a decimal fraction is allowed
        assertThat(DurationConverter.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
    }

    @ParameterizedTest
    @ValueSource(strings = {"30x", "30", "", "s", "-5s", "1m 30s", "30s1m", "PTx", "99999999999999999999s", "ms30"})
    void rejectsWithWhatToType(String bad) {
        assertThatThrownBy(() -> DurationConverter.parse(bad))
                .isInstanceOf(TypeConversionException.class)
                .hasMessageContaining("250ms, 2s, 1.5s, 1m30s or 1h");
    }

    @Test
    void formatsInItsOwnNotation() {
        assertThat(DurationConverter.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
        assertThat(DurationConverter.format(Duration.ofMillis(1500))).isEqualTo("1.5s");
        assertThat(DurationConverter.format(Duration.ofDays(1).plusHours(2))).isEqualTo("26h");
        assertThat(DurationConverter.format(Duration.ZERO)).isEqualTo("0ms");
    }
}

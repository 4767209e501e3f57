package io.latchkey.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationTextTest {

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource({
        "250ms, PT0.25S",
        "2s, PT2S",
        "1.5s, PT1.5S",
        "1m30s, PT1M30S",
        "1h, PT1H",
        "2s500ms, PT2.5S",
        "1d, PT24H",
        "1h30m, PT1H30M",
        "0.5h, PT30M",
        "' 2S ', PT2S",
        "0s, PT0S",
        "PT0.5S, PT0.5S",
        "pt2s, PT2S",
        "1.000000001s, PT1.000000001S"
    })
    void readsEveryFormOfTheGrammar(String text, String iso) {
        assertThat(DurationText.parse("timeout", text)).isEqualTo(Duration.parse(iso));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "30",
                "1.5",
                "",
                "  ",
                "s",
                "2x",
                "1s1m",
                "1s1s",
                "-1s",
                "-PT1S",
                "1 s",
                "PTX",
                "1.0000000001s",
                "99999999999999999999d"
            })
    void rejectsWhatIsNotADurationNamingTheKeyAndGivingExamples(String text) {
        assertThatThrownBy(() -> DurationText.parse("Redis setting timeout", text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "Redis setting timeout must be a duration such as 250ms, 2s, 1.5s, 1m30s or 1h; '");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"30", "1500"})
    void aBareNumberSaysItHasNoUnit(String text) {
        assertThatThrownBy(() -> DurationText.parse("leaseTtl", text))
                .hasMessageEndingWith("'" + text + "' has no unit");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"PT0.25S", "PT5S", "PT1.5S", "PT1M30S", "PT1H", "PT1H0.5S", "PT0.0005S", "PT48H"})
    void formatReadsBack(String iso) {
        Duration d = Duration.parse(iso);
        assertThat(DurationText.parse("x", DurationText.format(d))).isEqualTo(d);
    }

    @org.junit.jupiter.api.Test
    void formatIsWhatPeopleWrite() {
        assertThat(DurationText.format(Duration.ofMillis(250))).isEqualTo("250ms");
        assertThat(DurationText.format(Duration.ofSeconds(5))).isEqualTo("5s");
        assertThat(DurationText.format(Duration.ofMillis(1500))).isEqualTo("1.5s");
        assertThat(DurationText.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
        assertThat(DurationText.format(Duration.ofHours(1))).isEqualTo("1h");
    }
}

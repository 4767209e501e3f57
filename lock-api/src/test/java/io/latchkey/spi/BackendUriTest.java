package io.latchkey.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.spi.BackendUri.HostPort;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BackendUriTest {

    private static BackendUri parse(String uri, Map<String, String> settings) {
        return BackendUri.parse(BackendUri.toUri(uri), "Redis", settings, 6379);
    }

    @Test
    void takesEveryPartApart() {
        BackendUri u = parse("redlock://al:s3cr%40t@h1:1,h2:2,h3/7?timeout=2s&x=1", Map.of("poolSize", "4"));
        assertThat(u.scheme()).isEqualTo("redlock");
        assertThat(u.hosts()).containsExactly(new HostPort("h1", 1), new HostPort("h2", 2), new HostPort("h3", 6379));
        assertThat(u.user()).contains("al");
        assertThat(u.password()).contains("s3cr@t");
        assertThat(u.path()).isEqualTo("7");
        assertThat(u.settings().asMap()).containsOnlyKeys("poolSize", "timeout", "x");
        assertThat(u.target()).isEqualTo("redlock://h1:1,h2:2,h3:6379/7");
        assertThat(u.toString()).doesNotContain("s3cr").contains("al:***@");
    }

    @Test
    void anIpv6HostIsWrittenInBrackets() {
        BackendUri u = parse("redis://[::1]:7000", null);
        assertThat(u.hosts()).containsExactly(new HostPort("::1", 7000));
        assertThat(u.target()).isEqualTo("redis://[::1]:7000");
    }

    @Test
    void aLoneUserInfoIsAPasswordAndCredentialsMayComeAsSettings() {
        assertThat(parse("redis://s3cret@h", null).password()).contains("s3cret");
        assertThat(parse("redis://s3cret@h", null).user()).isEmpty();
        BackendUri u = parse("redis://h?user=al&password=pw", null);
        assertThat(u.user()).contains("al");
        assertThat(u.password()).contains("pw");
        assertThat(u.settings().asMap()).isEmpty();
        assertThat(u.toString()).doesNotContain("=pw");
    }

    @Test
    void somethingGivenTwiceIsAnErrorThatQuotesNoSecret() {
        assertThatThrownBy(() -> parse("redis://:pw1@h", Map.of("password", "pw2")))
                .hasMessageContaining("password is given both")
                .hasMessageNotContaining("pw1")
                .hasMessageNotContaining("pw2");
        assertThatThrownBy(() -> parse("redis://h?timeout=1s", Map.of("timeout", "2s")))
                .hasMessageContaining(
                        "setting timeout of 'redis://h?timeout=1s' is given both in the URI and in the settings map");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "redis://:pw@h:0",
                "redis://:pw@h:x",
                "redis://:pw@h:",
                "redis://:pw@h1,,h2",
                "redis://:pw@[::1",
                "redis://:pw@:6379",
                "redis://:p w@h"
            })
    void badHostsAreClearErrorsWithoutThePassword(String uri) {
        assertThatThrownBy(() -> parse(uri, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("pw@")
                .hasMessageNotContaining("p w")
                .hasMessageContaining("***@");
    }

    @Test
    void noHostIsAnErrorWithAnExample() {
        assertThatThrownBy(() -> parse("redis:/x", null))
                .hasMessage("Redis URI 'redis:/x' has no host; expected for example redis://127.0.0.1:6379");
    }

    @Test
    void toUriReadsABareSchemeAndMasksMalformedOnes() {
        assertThat(BackendUri.toUri("mem:")).hasToString("mem:/");
        assertThatThrownBy(() -> BackendUri.toUri("redis://u:pw d@h/x"))
                .hasMessageContaining("malformed")
                .hasMessageNotContaining("pw d")
                .hasMessageContaining("'redis://***@h/x'");
        assertThat(List.of(BackendUri.toUri("jdbc:postgresql://h/db").getScheme()))
                .containsExactly("jdbc");
    }
}

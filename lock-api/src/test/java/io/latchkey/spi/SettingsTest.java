package io.latchkey.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsTest {
    private static final Duration MS = Duration.ofMillis(1);
    private static final Duration TEN_MIN = Duration.ofMinutes(10);

    enum Mode {
        LEASE,
        SESSION_LOCK
    }

    @Test
    void typedGettersReadValuesAndFallBackToDefaults() {
        Settings s = Settings.of(
                "Redis",
                Map.of("timeout", "1.5s", "poolSize", "8", "drift", "0.01", "tls", "TRUE", "mode", "session-lock"));
        assertThat(s.duration("timeout", Duration.ofSeconds(2), MS, TEN_MIN)).isEqualTo(Duration.ofMillis(1500));
        assertThat(s.duration("other", Duration.ofSeconds(2), MS, TEN_MIN)).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.integer("poolSize", 4, 1, 64)).isEqualTo(8);
        assertThat(s.decimal("drift", 0.0, 0.0, 0.5)).isEqualTo(0.01);
        assertThat(s.flag("tls", false)).isTrue();
        assertThat(s.choice("mode", Mode.class, Mode.LEASE)).isEqualTo(Mode.SESSION_LOCK);
        assertThat(s.text("missing")).isEmpty();
    }

    @Test
    void badValuesNameTheBackendTheKeyAndWhatIsAllowed() {
        Settings s =
                Settings.of("etcd", Map.of("timeout", "0s", "n", "x", "flag", "yes", "mode", "fast", "bare", "30"));
        assertThatThrownBy(() -> s.duration("timeout", Duration.ofSeconds(1), MS, TEN_MIN))
                .hasMessage("etcd setting timeout must be a duration between 1ms and 10m, was '0s'");
        assertThatThrownBy(() -> s.integer("n", 1, 1, 9))
                .hasMessage("etcd setting n must be a whole number between 1 and 9, was 'x'");
        assertThatThrownBy(() -> s.flag("flag", false))
                .hasMessage("etcd setting flag must be true or false, was 'yes'");
        assertThatThrownBy(() -> s.choice("mode", Mode.class, Mode.LEASE))
                .hasMessage("etcd setting mode must be one of lease, session-lock, was 'fast'");
        assertThatThrownBy(() -> s.duration("bare", Duration.ofSeconds(1), MS, TEN_MIN))
                .hasMessage(
                        "etcd setting bare must be a duration such as 250ms, 2s, 1.5s, 1m30s or 1h; '30' has no unit");
    }

    @Test
    void unknownKeysAreRejectedWithTheKnownOnesListed() {
        Settings s = Settings.of("Redis", Map.of("timout", "2s"));
        assertThatThrownBy(() -> s.rejectUnknown(List.of("timeout", "database")))
                .hasMessage("unknown Redis setting 'timout'; known settings: [database, timeout]");
    }

    @Test
    void aSecretValueIsNeverQuoted() {
        Settings s = Settings.of("Redis", Map.of("tlsKeyPassword", "hunter22", "timeout", "2s"));
        assertThat(s.toString()).doesNotContain("hunter22").contains("tlsKeyPassword=***");
        assertThatThrownBy(() -> s.integer("tlsKeyPassword", 1, 1, 2)).hasMessageNotContaining("hunter22");
    }

    @Test
    void readableFileChecksTheFile(@TempDir Path dir) throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.pem"), "x");
        Settings s = Settings.of(
                "etcd",
                Map.of("tlsCa", ca.toString(), "tlsCert", dir.resolve("no.pem").toString()));
        assertThat(s.readableFile("tlsCa")).contains(ca);
        assertThatThrownBy(() -> s.readableFile("tlsCert"))
                .hasMessageContaining("etcd setting tlsCert must name a readable file")
                .hasMessageEndingWith("(no such file)");
    }
}

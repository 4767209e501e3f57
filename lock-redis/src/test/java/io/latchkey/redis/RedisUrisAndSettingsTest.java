package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** URI and settings parsing; every rejection says what is allowed and never shows a password. */
class RedisUrisAndSettingsTest {

    @Test
    void singleNodeUriWithUserPasswordAndDatabase() {
        RedisUris.Parsed p = RedisUris.parse(URI.create("redis://app:s%40cret@cache-1:6390/3"), Map.of());
        assertThat(p.nodes()).containsExactly(new RedisUris.HostPort("cache-1", 6390));
        assertThat(p.user()).isEqualTo("app");
        assertThat(p.password()).isEqualTo("s@cret");
        assertThat(p.database()).isEqualTo(3);
        assertThat(p.tls()).isFalse();
        assertThat(p.toString()).doesNotContain("s%40cret").doesNotContain("s@cret").contains("app:***@");
    }

    @Test
    void passwordOnlyUserInfoAndTlsAndDefaultPort() {
        RedisUris.Parsed p = RedisUris.parse(URI.create("rediss://:pw@host"), Map.of());
        assertThat(p.user()).isNull();
        assertThat(p.password()).isEqualTo("pw");
        assertThat(p.tls()).isTrue();
        assertThat(p.nodes()).containsExactly(new RedisUris.HostPort("host", 6379));
        assertThat(RedisUris.parse(URI.create("redis://justpw@host:1"), Map.of()).password()).isEqualTo("justpw");
    }

    @Test
    void redlockUriWithSeveralHostsAndQuerySettings() {
        RedisUris.Parsed p = RedisUris.parse(URI.create("redlock://u:pw@h1:7001,h2:7002,10.0.0.3:7003/0?timeout=50ms&keyPrefix=app:"),
                Map.of("poolSize", "4"));
        assertThat(p.nodes()).containsExactly(new RedisUris.HostPort("h1", 7001), new RedisUris.HostPort("h2", 7002),
                new RedisUris.HostPort("10.0.0.3", 7003));
        assertThat(p.settings()).containsEntry("timeout", "50ms").containsEntry("keyPrefix", "app:").containsEntry("poolSize", "4");
        RedisSettings s = RedisSettings.fromMap(p.settings());
        assertThat(s.timeout()).contains(Duration.ofMillis(50));
        assertThat(s.keyPrefix()).isEqualTo("app:");
        assertThat(s.poolSize()).isEqualTo(4);
        assertThat(p.toString()).doesNotContain(":pw@");
    }

    @Test
    void badUrisAreRejectedWithoutShowingThePassword() {
        assertThatThrownBy(() -> RedisUris.parse(URI.create("redis://:topsecret@h1:1,h2:2"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redlock://")
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> RedisUris.parse(URI.create("redis://:topsecret@host:99999"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("between 1 and 65535")
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> RedisUris.parse(URI.create("redis://:topsecret@host:1/x"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("database number")
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> RedisUris.parse(URI.create("redis://h:1?timeout=1s"), Map.of("timeout", "2s")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("both");
        assertThatThrownBy(() -> RedisLockBackend.connect("redlock://:topsecret@h1:1,h2:2"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 3")
                .hasMessageNotContaining("topsecret");
    }

    @Test
    void settingsAreValidatedAndUnknownKeysListTheKnownOnes() {
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("timeuot", "1s")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeuot").hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisSettings.builder().timeout(Duration.ZERO)).hasMessageContaining("positive");
        assertThatThrownBy(() -> RedisSettings.builder().keyPrefix("a{b")).hasMessageContaining("braces");
        assertThatThrownBy(() -> RedisSettings.builder().poolSize(0)).hasMessageContaining("between 1 and 1024");
        assertThatThrownBy(() -> RedisSettings.builder().clockDrift(0.9)).hasMessageContaining("between 0 and 0.5");
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("timeout", "soon"))).hasMessageContaining("100ms");
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("tls", "yes"))).hasMessageContaining("true or false");
        assertThat(RedisSettings.fromMap(Map.of("timeout", "PT0.25S", "connectTimeout", "3s", "clockDrift", "0.02")))
                .satisfies(s -> {
                    assertThat(s.timeout()).contains(Duration.ofMillis(250));
                    assertThat(s.connectTimeout()).contains(Duration.ofSeconds(3));
                    assertThat(s.clockDrift()).isEqualTo(0.02);
                });
        assertThat(RedisSettings.fromMap(Map.of("timeout", "150"))).extracting(s -> s.timeout().orElseThrow())
                .isEqualTo(Duration.ofMillis(150));
    }

    @Test
    void credentialsMayComeAsSettingsButNotTwiceAndNeverReachTheSettings() {
        RedisUris.Parsed p = RedisUris.parse(URI.create("redis://h:1?user=app&password=s%40cret&timeout=1s"), Map.of());
        assertThat(p.user()).isEqualTo("app");
        assertThat(p.password()).isEqualTo("s@cret");
        assertThat(p.settings()).containsOnlyKeys("timeout");
        assertThat(p.toString()).doesNotContain("s%40cret").doesNotContain("s@cret");
        assertThat(p.target()).isEqualTo("redis://h:1");
        RedisUris.Parsed m = RedisUris.parse(URI.create("redlock://h1:1,h2:2,h3:3/2"), Map.of("password", "pw-from-map"));
        assertThat(m.password()).isEqualTo("pw-from-map");
        assertThat(m.user()).isNull();
        assertThat(m.target()).isEqualTo("redlock://h1:1,h2:2,h3:3/2");
        assertThatThrownBy(() -> RedisUris.parse(URI.create("redis://:topsecret@h:1"), Map.of("password", "other-secret")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("given both")
                .hasMessageNotContaining("topsecret").hasMessageNotContaining("other-secret");
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("passwrd", "x")))
                .hasMessageContaining("password").hasMessageContaining("user");
    }

    @Test
    void theConnectTimeoutIsFiveSecondsUnlessSet() {
        assertThat(RedisSettings.defaults().connectTimeout()).isEmpty();
        assertThat(RedisSettings.defaults().connectTimeoutOrDefault()).isEqualTo(Duration.ofSeconds(5));
        assertThat(RedisSettings.fromMap(Map.of("connectTimeout", "1s")).connectTimeoutOrDefault()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void storeTtlLeavesTheFullLeaseAsValidityUnderTheRedlockDriftFormula() {
        try (RedisLockBackend b = RedisLockBackend.connect(URI.create("redis://127.0.0.1:1"), Map.of(), false)) { // no I/O
            for (long leaseMs : List.of(1L, 100L, 1000L, 30_000L)) {
                long ttl = b.storeTtlMillis(Duration.ofMillis(leaseMs).toNanos());
                double drift = 0.01 * ttl + 2;
                assertThat(ttl - drift).as("lease %d ms, ttl %d ms", leaseMs, ttl).isGreaterThanOrEqualTo(leaseMs);
                assertThat(ttl).isLessThanOrEqualTo(leaseMs + leaseMs / 50 + 4);
            }
        }
    }
}

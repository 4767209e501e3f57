package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.spi.BackendUri;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** URI and settings parsing; every rejection says what is allowed and never shows a password. */
class RedisUrisAndSettingsTest {

    private static RedisTarget parse(String uri, Map<String, String> settings) {
        return RedisTarget.parse(URI.create(uri), settings);
    }

    @Test
    void singleNodeUriWithUserPasswordAndDatabase() {
        RedisTarget p = parse("redis://app:s%40cret@cache-1:6390/3", Map.of());
        assertThat(p.uri().hosts()).containsExactly(new BackendUri.HostPort("cache-1", 6390));
        assertThat(p.uri().user()).contains("app");
        assertThat(p.uri().password()).contains("s@cret");
        assertThat(p.database()).isEqualTo(3);
        assertThat(p.tls()).isFalse();
        assertThat(p.uri().toString())
                .doesNotContain("s%40cret")
                .doesNotContain("s@cret")
                .contains("app:***@");
        assertThat(p.target()).isEqualTo("redis://cache-1:6390/3");
    }

    @Test
    void passwordOnlyUserInfoAndTlsAndDefaultPort() {
        RedisTarget p = parse("rediss://:pw@host", Map.of());
        assertThat(p.uri().user()).isEmpty();
        assertThat(p.uri().password()).contains("pw");
        assertThat(p.tls()).isTrue();
        assertThat(p.uri().hosts()).containsExactly(new BackendUri.HostPort("host", 6379));
        assertThat(parse("redis://justpw@host:1", Map.of()).uri().password()).contains("justpw");
        assertThat(parse("redis://host:1/0", Map.of()).target()).isEqualTo("redis://host:1");
    }

    @Test
    void sentinelUriNamesTheMasterTheDatabaseAndTheSentinelsCredentials() {
        RedisTarget p = parse(
                "redis-sentinel://:masterPw@s1,s2:26380,s3/mymaster/2?sentinelPassword=sentPw&timeout=1s",
                Map.of("sentinelUser", "watcher"));
        assertThat(p.topology()).isEqualTo(RedisTarget.Topology.SENTINEL);
        assertThat(p.uri().hosts())
                .containsExactly(
                        new BackendUri.HostPort("s1", 26379),
                        new BackendUri.HostPort("s2", 26380),
                        new BackendUri.HostPort("s3", 26379));
        assertThat(p.master()).isEqualTo("mymaster");
        assertThat(p.database()).isEqualTo(2);
        assertThat(p.uri().password()).contains("masterPw");
        assertThat(p.sentinelUser()).isEqualTo("watcher");
        assertThat(p.sentinelPassword()).isEqualTo("sentPw");
        // the Sentinels' credentials are taken out: RedisSettings accepts the rest and never holds them
        assertThat(p.settings().keys()).containsExactly("timeout");
        assertThat(p.target()).isEqualTo("redis-sentinel://s1:26379,s2:26380,s3:26379/mymaster/2");
        assertThat(p.toString()).doesNotContain("sentPw").doesNotContain("masterPw");
        assertThat(p.secrets()).contains("sentPw", "masterPw");
        assertThat(parse("redis-sentinel://s1/mymaster", Map.of()).database()).isZero();
    }

    @Test
    void clusterUriNamesSeedNodes() {
        RedisTarget p = parse("redis-cluster://u:pw1@n1:7000,n2:7001", Map.of());
        assertThat(p.topology()).isEqualTo(RedisTarget.Topology.CLUSTER);
        assertThat(p.uri().hosts())
                .containsExactly(new BackendUri.HostPort("n1", 7000), new BackendUri.HostPort("n2", 7001));
        assertThat(p.database()).isZero();
        assertThat(p.target()).isEqualTo("redis-cluster://n1:7000,n2:7001");
    }

    @Test
    void badSentinelAndClusterUrisAreRejectedWithWhatIsAllowed() {
        assertThatThrownBy(() -> parse("redis-sentinel://:topsecret@s1,s2,s3", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must name the master")
                .hasMessageContaining("redis-sentinel://s1:26379,s2:26379,s3:26379/mymaster[/0]")
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> parse("redis-sentinel://s1/mymaster/1/2", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must name the master");
        assertThatThrownBy(() -> parse("redis-sentinel://s1/mymaster/x", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("database number");
        assertThatThrownBy(() -> parse("redis-cluster://:topsecret@n1,n2/3", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only database 0")
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> parse("redis://h1?sentinelPassword=topsecret", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis-sentinel:// only")
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> parse("redis://h1,h2", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis-cluster://");
        assertThatThrownBy(() -> parse("memcached://h1", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis-sentinel://");
    }

    @Test
    void redlockUriWithSeveralHostsAndQuerySettings() {
        RedisTarget p = parse(
                "redlock://u:pw@h1:7001,h2:7002,10.0.0.3:7003/0?timeout=50ms&keyPrefix=app:", Map.of("poolSize", "4"));
        assertThat(p.uri().hosts())
                .containsExactly(
                        new BackendUri.HostPort("h1", 7001),
                        new BackendUri.HostPort("h2", 7002),
                        new BackendUri.HostPort("10.0.0.3", 7003));
        assertThat(p.uri().settings().asMap())
                .containsEntry("timeout", "50ms")
                .containsEntry("keyPrefix", "app:")
                .containsEntry("poolSize", "4");
        assertThat(p.target()).isEqualTo("redlock://h1:7001,h2:7002,10.0.0.3:7003");
        RedisSettings s = RedisSettings.fromSettings(p.uri().settings());
        assertThat(s.timeout()).contains(Duration.ofMillis(50));
        assertThat(s.keyPrefix()).isEqualTo("app:");
        assertThat(s.poolSize()).isEqualTo(4);
        assertThat(p.uri().toString()).doesNotContain(":pw@");
    }

    @Test
    void badUrisAreRejectedWithoutShowingThePassword() {
        assertThatThrownBy(() -> parse("redis://:topsecret@h1:1,h2:2", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redlock://")
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> parse("redis://:topsecret@host:99999", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 1 and 65535")
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> parse("redis://:topsecret@host:1/x", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("database number")
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> parse("redis://h:1?timeout=1s", Map.of("timeout", "2s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("both");
        assertThatThrownBy(() -> RedisLockBackend.connect("redlock://:topsecret@h1:1,h2:2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 3")
                .hasMessageNotContaining("topsecret");
    }

    @Test
    void settingsAreValidatedAndUnknownKeysListTheKnownOnes() {
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("timeuot", "1s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeuot")
                .hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisSettings.builder().timeout(Duration.ZERO)).hasMessageContaining("positive");
        assertThatThrownBy(() -> RedisSettings.builder().keyPrefix("a{b")).hasMessageContaining("braces");
        assertThatThrownBy(() -> RedisSettings.builder().poolSize(0)).hasMessageContaining("between 1 and 1024");
        assertThatThrownBy(() -> RedisSettings.builder().clockDrift(0.9)).hasMessageContaining("between 0 and 0.5");
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("timeout", "soon")))
                .hasMessageContaining("Redis setting timeout")
                .hasMessageContaining("250ms")
                .hasMessageContaining("'soon'");
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("timeout", "0s")))
                .hasMessageContaining("timeout")
                .hasMessageContaining("between 1ms and 10m");
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("poolSize", "0")))
                .hasMessageContaining("poolSize")
                .hasMessageContaining("between 1 and 1024");
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("tls", "yes"))).hasMessageContaining("true or false");
        assertThat(RedisSettings.fromMap(Map.of("timeout", "PT0.25S", "connectTimeout", "3s", "clockDrift", "0.02")))
                .satisfies(s -> {
                    assertThat(s.timeout()).contains(Duration.ofMillis(250));
                    assertThat(s.connectTimeout()).contains(Duration.ofSeconds(3));
                    assertThat(s.clockDrift()).isEqualTo(0.02);
                });
        // the one duration grammar: a bare number is rejected (its unit would be a guess), 1m30s and 1.5s read
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("timeout", "150")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout")
                .hasMessageContaining("has no unit");
        assertThat(RedisSettings.fromMap(Map.of("timeout", "1.5s", "connectTimeout", "1m30s")))
                .satisfies(s -> {
                    assertThat(s.timeout()).contains(Duration.ofMillis(1500));
                    assertThat(s.connectTimeout()).contains(Duration.ofSeconds(90));
                });
    }

    @Test
    void addressMapReadsAnnouncedEqualsReachablePairsAndRejectsWhatItCannotUse() {
        assertThat(RedisSettings.fromMap(Map.of("addressMap", "10.0.0.5:6379=redis-a.example:16379, 10.0.0.6:6379=b:1"))
                        .addressMap())
                .containsExactly(
                        Map.entry("10.0.0.5:6379", "redis-a.example:16379"), Map.entry("10.0.0.6:6379", "b:1"));
        assertThat(RedisSettings.defaults().addressMap()).isEmpty();
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("addressMap", "10.0.0.5:6379")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("announced=reachable pairs");
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("addressMap", "a:1=b:2,a:1=c:3")))
                .hasMessageContaining("maps a:1 twice");
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("addressMap", "a:1=b:99999")))
                .hasMessageContaining("a reachable address must be host:port with a port from 1 to 65535")
                .hasMessageContaining("'b:99999'");
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("addressMap", "a=b:2")))
                .hasMessageContaining("an announced address must be host:port");
        // a single node and Redlock are given their nodes' addresses: the map would only confuse them
        assertThatThrownBy(() -> RedisLockBackend.connect(
                        URI.create("redis://127.0.0.1:1?addressMap=127.0.0.1:1%3D127.0.0.1:2"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("addressMap applies to redis-sentinel:// and redis-cluster://");
    }

    @Test
    void credentialsMayComeAsSettingsButNotTwiceAndNeverReachTheSettings() {
        RedisTarget p = parse("redis://h:1?user=app&password=s%40cret&timeout=1s", Map.of());
        assertThat(p.uri().user()).contains("app");
        assertThat(p.uri().password()).contains("s@cret");
        assertThat(p.uri().settings().keys()).containsOnly("timeout");
        assertThat(p.uri().toString()).doesNotContain("s%40cret").doesNotContain("s@cret");
        assertThat(p.target()).isEqualTo("redis://h:1");
        assertThat(p.secrets()).contains("s@cret");
        RedisTarget m = parse("redlock://h1:1,h2:2,h3:3/2", Map.of("password", "pw-from-map"));
        assertThat(m.uri().password()).contains("pw-from-map");
        assertThat(m.uri().user()).isEmpty();
        assertThat(m.target()).isEqualTo("redlock://h1:1,h2:2,h3:3/2");
        assertThatThrownBy(() -> parse("redis://:topsecret@h:1", Map.of("password", "other-secret")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("given both")
                .hasMessageNotContaining("topsecret")
                .hasMessageNotContaining("other-secret");
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("passwrd", "x")))
                .hasMessageContaining("password")
                .hasMessageContaining("user");
    }

    @Test
    void theConnectTimeoutIsFiveSecondsUnlessSet() {
        assertThat(RedisSettings.defaults().connectTimeout()).isEmpty();
        assertThat(RedisSettings.defaults().connectTimeoutOrDefault()).isEqualTo(Duration.ofSeconds(5));
        assertThat(RedisSettings.fromMap(Map.of("connectTimeout", "1s")).connectTimeoutOrDefault())
                .isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void storeTtlLeavesTheFullLeaseAsValidityUnderTheRedlockDriftFormula() {
        try (RedisLockBackend b =
                RedisLockBackend.connect(URI.create("redis://127.0.0.1:1"), Map.of(), false)) { // no I/O
            for (long leaseMs : List.of(1L, 100L, 1000L, 30_000L)) {
                long ttl = b.storeTtlMillis(Duration.ofMillis(leaseMs).toNanos());
                double drift = 0.01 * ttl + 2;
                assertThat(ttl - drift)
                        .as("lease %d ms, ttl %d ms", leaseMs, ttl)
                        .isGreaterThanOrEqualTo(leaseMs);
                assertThat(ttl).isLessThanOrEqualTo(leaseMs + leaseMs / 50 + 4);
            }
        }
    }
}

package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.latchkey.tck.ValidationRules;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Key encoding and settings parsing, without a server. */
class EtcdKeysAndSettingsTest {
    private final LockKeys keys = new LockKeys("latchkey");

    private static boolean startsWith(ByteSequence s, ByteSequence prefix) {
        return s.toString(StandardCharsets.UTF_8).startsWith(prefix.toString(StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName("a name that is a prefix of another never shares contenders with it (a, a/b, ab, a/, /a)")
    void prefixNamesNeverShareContenders() {
        List<String> names = List.of("a", "a/b", "ab", "a/", "/a", "a\u00A0b", "", "é", "e\u0301");
        for (String x : names) {
            for (String y : names) {
                if (x.isEmpty() || y.isEmpty() || x.equals(y)) {
                    continue;
                }
                assertThat(startsWith(keys.contender(y, 0x1234L), keys.namePrefix(x)))
                        .as("contender of '%s' falls under the prefix of '%s'", y, x)
                        .isFalse();
            }
        }
    }

    @Test
    @DisplayName("every hostile valid name of the TCK maps to a distinct key and decodes back to itself")
    void hostileNamesRoundTrip() {
        Set<String> prefixes = new HashSet<>();
        for (String name : ValidationRules.hostileValidNames()) {
            ByteSequence key = keys.contender(name, Long.MAX_VALUE);
            assertThat(keys.nameOf(key)).isEqualTo(name);
            assertThat(prefixes.add(keys.namePrefix(name).toString(StandardCharsets.UTF_8)))
                    .as("distinct: %s", name)
                    .isTrue();
        }
    }

    @Test
    @DisplayName("list(prefix) range covers exactly the names starting with the prefix")
    void listingRangeFollowsNamePrefixes() {
        ByteSequence range = keys.namesStartingWith("a");
        assertThat(startsWith(keys.contender("a", 1), range)).isTrue();
        assertThat(startsWith(keys.contender("ab", 1), range)).isTrue();
        assertThat(startsWith(keys.contender("a/b", 1), range)).isTrue();
        assertThat(startsWith(keys.contender("b", 1), range)).isFalse();
        assertThat(startsWith(keys.contender("A", 1), range)).isFalse();
    }

    @Test
    @DisplayName("the URI lists several hosts and a namespace; passwords never reach the description")
    void uriParsing() {
        EtcdConnection c = EtcdConnection.parse(
                "etcd://app:s3cret@10.0.0.1:2379,10.0.0.2:2379/billing/locks/",
                Map.of("leaseTtl", "1500ms", "requestTimeout", "PT0.5S"));
        assertThat(c.description())
                .isEqualTo("etcd://app:***@10.0.0.1:2379,10.0.0.2:2379/billing/locks")
                .doesNotContain("s3cret");
        assertThat(c.settings().namespace()).isEqualTo("billing/locks");
        assertThat(c.settings().leaseTtl()).as("rounded up to whole seconds").isEqualTo(Duration.ofSeconds(2));
        assertThat(c.settings().requestTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(EtcdConnection.parse("etcd://h:1", Map.of()).settings())
                .usingRecursiveComparison()
                .isEqualTo(EtcdSettings.defaults());
    }

    @Test
    @DisplayName("bad URIs and settings are rejected with a message that says what is allowed")
    void badInputIsRejected() {
        assertThatThrownBy(() -> EtcdConnection.parse("etcd://h:1", Map.of("leaseTTL", "5s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("known settings")
                .hasMessageContaining("leaseTtl");
        assertThatThrownBy(() -> EtcdConnection.parse("etcd://h:99999", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 1 and 65535");
        assertThatThrownBy(() -> EtcdConnection.parse("etcd://u:pw@h", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("pw@");
        assertThatThrownBy(() -> EtcdConnection.parse("etcd://h:1?x=y", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("settings");
        assertThatThrownBy(() -> EtcdConnection.parse("etcd://h:1", Map.of("leaseTtl", "soon")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("250ms");
        assertThatThrownBy(() -> EtcdSettings.builder().leaseTtl(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> EtcdSettings.builder().namespace("a\u0000b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("control");
        assertThatThrownBy(() -> EtcdConnection.parse("etcd://h:1/ns", Map.of("namespace", "other")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("once");
        assertThatThrownBy(() -> EtcdConnection.parse("etcd://app@h:1", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("user:password")
                .hasMessageNotContaining("app");
        assertThatThrownBy(() -> EtcdConnection.parse("etcd://h:1", Map.of("user", "app")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without a password");
        assertThatThrownBy(() -> EtcdConnection.parse("etcd://h:1", Map.of("password", "x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("user")
                .hasMessageNotContaining("x'");
    }
}

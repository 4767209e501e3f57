package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ZooKeeperBackendProviderTest {

    @Test
    void parsesHostsChrootQueryAndDigest() {
        ZooKeeperBackendProvider.Parsed p = ZooKeeperBackendProvider.parse(
                URI.create("zookeeper://app:s%40cret@h1:2181,h2:2182,10.0.0.3:2183/apps/x?sessionTimeout=10s"),
                Map.of("basePath", "/locks"));
        assertThat(p.connectString).isEqualTo("h1:2181,h2:2182,10.0.0.3:2183");
        assertThat(p.basePath).isEqualTo("/apps/x/locks");
        assertThat(p.digest).isEqualTo("app:s@cret");
        assertThat(p.settings.sessionTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(ZooKeeperBackendProvider.parse(URI.create("zookeeper://h:1"), Map.of()).basePath)
                .isEqualTo("/latchkey");
        assertThat(ZooKeeperBackendProvider.parse(URI.create("zookeeper://h:1/"), Map.of()).basePath)
                .isEqualTo("/latchkey");
    }

    @Test
    void rejectsBadUrisAndSettingsSayingWhatIsAllowed() {
        assertThatThrownBy(() -> ZooKeeperBackendProvider.parse(URI.create("zookeeper://h1"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("host:port");
        assertThatThrownBy(() -> ZooKeeperBackendProvider.parse(URI.create("zookeeper://h1:99999"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 1 and 65535");
        assertThatThrownBy(
                        () -> ZooKeeperBackendProvider.parse(URI.create("zookeeper://h1:1"), Map.of("colour", "red")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("known settings");
        assertThatThrownBy(() -> ZooKeeperBackendProvider.parse(
                        URI.create("zookeeper://h1:1?sessionTimeout=5s"), Map.of("sessionTimeout", "6s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("once");
        assertThatThrownBy(() -> ZooKeeperBackendProvider.parse(
                        URI.create("zookeeper://h1:1"), Map.of("sessionTimeout", "soon")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sessionTimeout");
        assertThatThrownBy(() -> ZooKeeperBackendProvider.parse(
                        URI.create("zookeeper://h1:1"), Map.of("sessionTimeout", "2s", "connectionTimeout", "3s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not exceed");
        assertThatThrownBy(
                        () -> ZooKeeperBackendProvider.parse(URI.create("zookeeper://h1:1"), Map.of("basePath", "/")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("below the root");
        assertThatThrownBy(() -> ZooKeeperBackendProvider.parse(
                        URI.create("zookeeper://h1:1"), Map.of("basePath", "/zookeeper/x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reserves");
        assertThatThrownBy(() -> ZooKeeperSettings.builder().sessionTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between");
    }

    @Test
    void anUnreachableServerFailsFastWithoutThePassword() {
        int port = freePort();
        assertThatThrownBy(() -> new ZooKeeperBackendProvider()
                        .create(
                                URI.create("zookeeper://app:topsecret@127.0.0.1:" + port),
                                Map.of("connectionTimeout", "300ms")))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith(
                        "cannot reach zookeeper://127.0.0.1:" + port + " within 300ms: connection refused")
                .hasMessageNotContaining("topsecret");
    }

    private static int freePort() {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.TestCertificates;
import io.latchkey.zookeeper.fixtures.TlsZooKeeper;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** TLS failures on a TLS-only ZooKeeper server: each is one line naming the server and what went wrong. */
class ZooKeeperTlsTest {
    private static TestCertificates certs;
    private static TestCertificates strangers;
    private static RunningServer server;

    @BeforeAll
    static void start() {
        certs = TestCertificates.create();
        strangers = TestCertificates.create();
        server = TlsZooKeeper.start(certs);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        for (TestCertificates c : new TestCertificates[] {certs, strangers}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    @DisplayName("a server certificate no trusted CA signed fails at once, one line naming the server and the problem")
    void untrustedCertificate() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> connect("app:s3cret-pw@", Map.of("tlsCa", strangers.caCertificate().toString())))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("TLS handshake with 127.0.0.1:" + port() + " failed")
                .hasMessageContaining("the server's certificate is not trusted")
                .hasMessageNotContaining("s3cret-pw")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThat(System.nanoTime() - start).isLessThan(java.time.Duration.ofSeconds(5).toNanos());
    }

    @Test
    @DisplayName("the trusted CA connects; a client without TLS is not served")
    void trustedAndPlain() {
        try (var b = connect("", Map.of("tlsCa", certs.caCertificate().toString()))) {
            assertThat(b.inspect("nothing")).isEmpty();
        }
        assertThatThrownBy(() -> connect("", Map.of("connectTimeout", "2s")))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + port());
    }

    @Test
    @DisplayName("tls=false with tlsCa is refused before connecting")
    void contradictorySettings() {
        assertThatThrownBy(
                        () -> connect("", Map.of("tls", "false", "tlsCa", certs.caCertificate().toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tls=false contradicts tlsCa");
        assertThatThrownBy(() -> connect("", Map.of("tlsCa", "/no/such/ca.pem")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tlsCa must be a readable PEM file");
    }

    private static int port() {
        return server.endpoint().port();
    }

    private static ZooKeeperLockBackend connect(String userInfo, Map<String, String> settings) {
        Map<String, String> s = new java.util.HashMap<>(settings);
        s.putIfAbsent("connectTimeout", "10s");
        return (ZooKeeperLockBackend) new ZooKeeperBackendProvider()
                .create(URI.create("zookeeper://" + userInfo + "127.0.0.1:" + port()), s);
    }
}

package io.latchkey.mongodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.servers.TestCertificates;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * TLS on a TLS-only mongo-java-server: the PEM settings, and each failure as one line naming the server and what went
 * wrong, never a password.
 */
class MongoTlsTest {
    private static TestCertificates certs;
    private static TestCertificates strangers;
    private static EmbeddedMongo mongo;

    @BeforeAll
    static void start() {
        certs = TestCertificates.create();
        strangers = TestCertificates.create();
        mongo = new EmbeddedMongo(certs);
    }

    @AfterAll
    static void stop() {
        if (mongo != null) {
            mongo.close();
        }
        for (TestCertificates c : new TestCertificates[] {certs, strangers}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    @DisplayName("a server certificate no trusted CA signed fails at once, one line naming the server, in every password"
            + " form")
    void untrustedCertificate() {
        String hostPort = "127.0.0.1:" + URI.create(mongo.uri()).getPort();
        String ca = "tlsCa=" + strangers.caCertificate();
        String base = "mongodb://" + hostPort + "/latchkey?" + ca;
        Map<String, Map<String, String>> forms = Map.of(
                "mongodb://app:s3cret-pw@" + hostPort + "/latchkey?" + ca, Map.of(),
                base + "&user=app&password=s3cret-pw", Map.of(),
                base, Map.of("user", "app", "password", "s3cret-pw"));
        for (Map.Entry<String, Map<String, String>> form : forms.entrySet()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> Latchkey.connect(form.getKey(), form.getValue()))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("TLS handshake with " + hostPort + " failed")
                    .hasMessageContaining("the server's certificate is not trusted")
                    .hasMessageNotContaining("s3cret-pw")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"))
                    .satisfies(e -> System.out.println("MongoTlsTest untrusted: " + e.getMessage()));
            assertThat(System.nanoTime() - start)
                    .as("fails at the handshake, not after the driver's server selection")
                    .isLessThan(Duration.ofSeconds(4).toNanos());
        }
    }

    @Test
    @DisplayName("the trusted CA connects, also with a client certificate; a plain-text client is not served")
    void trustedMutualAndPlain() {
        try (MongoLockBackend b = MongoLockBackend.connect(mongo.uri() + "?tlsCa=" + certs.caCertificate())) {
            assertThat(b.inspect("nothing")).isEmpty();
        }
        try (MongoLockBackend b = MongoLockBackend.connect(mongo.uri() + "?tlsCa=" + certs.caCertificate() + "&tlsCert="
                + certs.clientCertificate() + "&tlsKey=" + certs.clientKey())) {
            assertThat(b.inspect("nothing")).isEmpty();
        }
        assertThatThrownBy(() -> MongoLockBackend.connect(mongo.uri() + "?connectTimeout=1s"))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("cannot reach mongodb://127.0.0.1:");
    }

    @Test
    @DisplayName("TLS settings that cannot work are refused before anything is sent, naming the setting")
    void badSettings() {
        String base = mongo.uri() + "?";
        assertThatThrownBy(() -> Latchkey.connect(base + "tls=false&tlsCa=" + certs.caCertificate()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tls=false contradicts tlsCa");
        assertThatThrownBy(() -> Latchkey.connect(base + "tlsCert=" + certs.clientCertificate()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("tlsCert and tlsKey")
                .hasMessageContaining("go together");
        assertThatThrownBy(() -> Latchkey.connect(base + "tlsCa=/nonexistent/ca.pem"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tlsCa file /nonexistent/ca.pem does not exist or is not a regular file");
        assertThatThrownBy(() -> Latchkey.connect(base + "tlsCert=" + certs.clientCertificate() + "&tlsKey="
                        + certs.serverKey()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not the private key of the certificate in tlsCert");
        assertThatThrownBy(() -> Latchkey.connect(base + "tls=true&tlsCAFile=" + certs.caCertificate()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not read tlsCAFile")
                .hasMessageContaining("tlsCa");
        assertThatThrownBy(() -> Latchkey.connect(base + "tls=true&tlsCertificateKeyFile=/x.pem"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tlsCert and tlsKey");
    }
}

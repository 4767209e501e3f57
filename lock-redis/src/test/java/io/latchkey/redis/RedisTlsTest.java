package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.tck.server.RunningServer;
import io.latchkey.tck.server.TestCertificates;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code rediss://} against real TLS-only redis-server processes: a private CA trusted with {@code tlsCa},
 * mutual TLS with {@code tlsCert}/{@code tlsKey}, refusals (no client certificate, untrusted server, wrong
 * host name) that surface as BackendUnavailableException naming the backend, and passwords over TLS that
 * never appear in messages.
 */
@Timeout(60)
class RedisTlsTest {
    private static final String PASSWORD = "tls-Pw-93x-never-shown";
    private static final String APP_PASSWORD = "app-Pw-51k-never-shown";
    private static TestCertificates certs;
    /** TLS, no client certificate needed, requirepass, an ACL user "app", listening on 127.0.0.1 and 127.0.0.2. */
    private static RunningServer server;
    /** TLS with --tls-auth-clients yes. */
    private static RunningServer mutual;

    @BeforeAll
    static void startServers() {
        certs = TestCertificates.create();
        server = RedisServers.tls(certs, false, "--requirepass", PASSWORD,
                "--user", "app", "on", ">" + APP_PASSWORD, "~*", "&*", "+@all",
                "--bind", "127.0.0.1", "127.0.0.2");
        mutual = RedisServers.tls(certs, true);
    }

    @AfterAll
    static void stopServers() {
        for (AutoCloseable c : new AutoCloseable[] {server, mutual, certs}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // the others still get closed
            }
        }
    }

    private static int port(RunningServer s) {
        return s.endpoint().port();
    }

    private static Map<String, String> trustingCa() {
        return Map.of("tlsCa", certs.caCertificate().toString(), "timeout", "2s");
    }

    private static Map<String, String> withClientCertificate() {
        Map<String, String> m = new HashMap<>(trustingCa());
        m.put("tlsCert", certs.clientCertificate().toString());
        m.put("tlsKey", certs.clientKey().toString());
        return m;
    }

    private static void acquireAndRelease(LockClient client, String name) {
        try (LockHandle h = client.lock(name).tryAcquire().orElseThrow()) {
            assertThat(h.fencingToken()).isPositive();
            assertThat(client.inspect(name)).isPresent();
        }
        assertThat(client.inspect(name)).isEmpty();
    }

    /** The acquire fails with BackendUnavailableException naming the lock and backend, and no secret anywhere. */
    private static void assertUnavailable(LockClient client, String name, Consumer<String> fullText,
                                          String... secrets) {
        ThrowableAssert.ThrowingCallable acquire = () -> client.lock(name).tryAcquire();
        assertThatThrownBy(acquire)
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("'" + name + "'")
                .hasMessageContaining(client.backend())
                .satisfies(e -> {
                    assertThat(((BackendUnavailableException) e).backend()).isEqualTo(client.backend());
                    for (Throwable t = e; t != null; t = t.getCause()) {
                        String m = String.valueOf(t.getMessage());
                        for (String secret : secrets) {
                            assertThat(m).doesNotContain(secret);
                        }
                    }
                    assertThat(client.toString()).doesNotContain(secrets);
                    fullText.accept(e.getMessage());
                });
    }

    @Test
    void passwordOverTlsWithAPrivateCaWorksAndIsNeverShown() {
        try (LockClient client = Latchkey.connect("rediss://:" + PASSWORD + "@127.0.0.1:" + port(server) + "/1", trustingCa())) {
            assertThat(client.backend()).startsWith("rediss://").contains("***").doesNotContain(PASSWORD);
            assertThat(client.toString()).doesNotContain(PASSWORD);
            acquireAndRelease(client, "tls/password");
        }
    }

    @Test
    void aclUserOverTlsWorksAndAWrongPasswordFailsWithoutShowingEither() {
        try (LockClient client = Latchkey.connect("rediss://app:" + APP_PASSWORD + "@127.0.0.1:" + port(server), trustingCa())) {
            assertThat(client.backend()).contains("app:***@").doesNotContain(APP_PASSWORD);
            acquireAndRelease(client, "tls/acl user");
        }
        String wrong = "wrong-Tls-Pw-12";
        try (LockClient client = Latchkey.connect("rediss://app:" + wrong + "@127.0.0.1:" + port(server), trustingCa())) {
            assertUnavailable(client, "tls/wrong", m -> assertThat(m).containsIgnoringCase("WRONGPASS"),
                    wrong, APP_PASSWORD, PASSWORD);
        }
    }

    @Test
    void theServerCertificateMayBeVerifiedByItsDnsName() {
        try (LockClient client = Latchkey.connect("rediss://:" + PASSWORD + "@localhost:" + port(server), trustingCa())) {
            acquireAndRelease(client, "tls/localhost");
        }
    }

    @Test
    void mutualTlsWithAClientCertificateWorks() {
        try (LockClient client = Latchkey.connect("rediss://127.0.0.1:" + port(mutual), withClientCertificate())) {
            acquireAndRelease(client, "tls/mutual");
        }
    }

    @Test
    void withoutAClientCertificateAServerThatRequiresOneRefusesAndThePasswordStaysHidden() {
        String secret = "mtls-Secret-408";
        try (LockClient client = Latchkey.connect("rediss://app:" + secret + "@127.0.0.1:" + port(mutual), trustingCa())) {
            assertThat(client.backend()).doesNotContain(secret);
            assertUnavailable(client, "tls/no client cert", m -> assertThat(m).contains("127.0.0.1:" + port(mutual))
                    .contains("tlsCert"), secret);
        }
    }

    @Test
    void anUntrustedServerCertificateFailsClearly() {
        // no tlsCa: the JVM's default trust store does not know the test CA
        try (LockClient client = Latchkey.connect("rediss://:" + PASSWORD + "@127.0.0.1:" + port(server),
                Map.of("timeout", "2s"))) {
            assertUnavailable(client, "tls/untrusted", m -> assertThat(m)
                    .containsIgnoringCase("certification path").contains("tlsCa"), PASSWORD);
        }
    }

    @Test
    void hostnameVerificationStaysOn() {
        // 127.0.0.2 reaches the same server, whose certificate names only localhost and 127.0.0.1
        try (LockClient client = Latchkey.connect("rediss://:" + PASSWORD + "@127.0.0.2:" + port(server), trustingCa())) {
            assertUnavailable(client, "tls/wrong host", m -> assertThat(m).contains("127.0.0.2").contains("subject alternative names"), PASSWORD);
        }
    }
}

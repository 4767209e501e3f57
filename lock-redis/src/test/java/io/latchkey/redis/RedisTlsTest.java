package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.TestCertificates;
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
 * host name) that surface at connect as one-line BackendUnavailableExceptions ("cannot reach rediss://...",
 * "authentication failed at rediss://..."), and passwords over TLS that never appear in messages.
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
        server = RedisServers.tls(
                certs,
                false,
                "--requirepass",
                PASSWORD,
                "--user",
                "app",
                "on",
                ">" + APP_PASSWORD,
                "~*",
                "&*",
                "+@all",
                "--bind",
                "127.0.0.1",
                "127.0.0.2");
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

    /**
     * Connecting fails (the backend checks the server before it is handed out) with BackendUnavailableException,
     * one line that starts as expected, and no secret anywhere.
     */
    private static void assertConnectFails(
            String uri, Map<String, String> settings, String firstWords, Consumer<String> fullText, String... secrets) {
        ThrowableAssert.ThrowingCallable connect =
                () -> Latchkey.connect(uri, settings).close();
        assertThatThrownBy(connect)
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith(firstWords)
                .satisfies(e -> {
                    assertThat(e.getMessage()).doesNotContain("\n");
                    for (Throwable t = e; t != null; t = t.getCause()) {
                        String m = String.valueOf(t.getMessage());
                        for (String secret : secrets) {
                            assertThat(m).doesNotContain(secret);
                            assertThat(String.valueOf(((BackendUnavailableException) e).backend()))
                                    .doesNotContain(secret);
                        }
                    }
                    fullText.accept(e.getMessage());
                });
    }

    @Test
    void passwordOverTlsWithAPrivateCaWorksAndIsNeverShown() {
        try (LockClient client =
                Latchkey.connect("rediss://:" + PASSWORD + "@127.0.0.1:" + port(server) + "/1", trustingCa())) {
            assertThat(client.backend()).startsWith("rediss://").contains("***").doesNotContain(PASSWORD);
            assertThat(client.toString()).doesNotContain(PASSWORD);
            acquireAndRelease(client, "tls/password");
        }
    }

    @Test
    void aclUserOverTlsWorksAndAWrongPasswordFailsWithoutShowingEither() {
        try (LockClient client =
                Latchkey.connect("rediss://app:" + APP_PASSWORD + "@127.0.0.1:" + port(server), trustingCa())) {
            assertThat(client.backend()).contains("app:***@").doesNotContain(APP_PASSWORD);
            acquireAndRelease(client, "tls/acl user");
        }
        String wrong = "wrong-Tls-Pw-12";
        assertConnectFails(
                "rediss://app:" + wrong + "@127.0.0.1:" + port(server),
                trustingCa(),
                "authentication failed at rediss://127.0.0.1:" + port(server) + ": ",
                m -> assertThat(m).containsIgnoringCase("WRONGPASS"),
                wrong,
                APP_PASSWORD,
                PASSWORD);
    }

    @Test
    void theServerCertificateMayBeVerifiedByItsDnsName() {
        try (LockClient client =
                Latchkey.connect("rediss://:" + PASSWORD + "@localhost:" + port(server), trustingCa())) {
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
        assertConnectFails(
                "rediss://app:" + secret + "@127.0.0.1:" + port(mutual),
                trustingCa(),
                "cannot reach rediss://127.0.0.1:" + port(mutual) + " within 5s: ",
                m -> assertThat(m).contains("tlsCert"),
                secret);
    }

    @Test
    void anUntrustedServerCertificateFailsClearly() {
        // no tlsCa: the JVM's default trust store does not know the test CA
        assertConnectFails(
                "rediss://:" + PASSWORD + "@127.0.0.1:" + port(server),
                Map.of("timeout", "2s"),
                "cannot reach rediss://127.0.0.1:" + port(server) + " within 5s: ",
                m -> assertThat(m).containsIgnoringCase("certification path").contains("tlsCa"),
                PASSWORD);
    }

    @Test
    void hostnameVerificationStaysOn() {
        // 127.0.0.2 reaches the same server, whose certificate names only localhost and 127.0.0.1
        assertConnectFails(
                "rediss://:" + PASSWORD + "@127.0.0.2:" + port(server),
                trustingCa(),
                "cannot reach rediss://127.0.0.2:" + port(server) + " within 5s: ",
                m -> assertThat(m).contains("subject alternative names"),
                PASSWORD);
    }
}

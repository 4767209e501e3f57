package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.auth.Permission;
import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockException;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.etcd.fixtures.EtcdCluster;
import io.latchkey.servers.TestCertificates;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * TLS, mutual TLS and user/password authentication against real etcd members: what works, and that what
 * must fail fails with a message naming the backend (and never showing a password).
 */
@Timeout(60)
class EtcdSecurityTest {
    private static final String USER = "locker";
    private static final String PASSWORD = "c0rrect-Pw-kx42";
    private static final String WRONG_PASSWORD = "Wr0ng-pW-zq81";

    private static TestCertificates certificates;
    private static TestCertificates strangers; // another CA: the server's certificate is not signed by it
    private static EtcdCluster mutualTls;
    private static EtcdCluster withAuth;

    @BeforeAll
    static void start() throws Exception {
        certificates = TestCertificates.create();
        strangers = TestCertificates.create();
        mutualTls = EtcdCluster.singleTls(certificates, true);
        // simple auth tokens that expire after 1 s without use, so the tests see a token expire under a held lock
        withAuth = EtcdCluster.singleWith("--auth-token-ttl", "1");
        enableAuth(withAuth);
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {mutualTls, withAuth, certificates, strangers}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // best effort
            }
        }
    }

    /** root (required by etcd to enable auth) and a user whose role may read and write the namespace only. */
    private static void enableAuth(EtcdCluster etcd) throws Exception {
        try (Client admin = etcd.newClient()) {
            Auth auth = admin.getAuthClient();
            auth.roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
            auth.userAdd(bytes("root"), bytes("root-" + PASSWORD)).get(10, TimeUnit.SECONDS);
            auth.userGrantRole(bytes("root"), bytes("root")).get(10, TimeUnit.SECONDS);
            auth.roleAdd(bytes("lockers")).get(10, TimeUnit.SECONDS);
            auth.roleGrantPermission(
                            bytes("lockers"), bytes("latchkey/"), bytes("latchkey0"), Permission.Type.READWRITE)
                    .get(10, TimeUnit.SECONDS);
            auth.userAdd(bytes(USER), bytes(PASSWORD)).get(10, TimeUnit.SECONDS);
            auth.userGrantRole(bytes(USER), bytes("lockers")).get(10, TimeUnit.SECONDS);
            auth.authEnable().get(10, TimeUnit.SECONDS);
        }
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static Map<String, String> settings(Map<String, String> connection, String... more) {
        Map<String, String> s = new HashMap<>(connection);
        s.putAll(Map.of("leaseTtl", "2s", "requestTimeout", "2s"));
        for (int i = 0; i < more.length; i += 2) {
            s.put(more[i], more[i + 1]);
        }
        return s;
    }

    private static void lockAndUnlock(LockClient client, String name) throws InterruptedException {
        try (LockHandle h = client.lock(name).acquire(Duration.ofSeconds(10))) {
            assertThat(h.isValid()).isTrue();
            assertThat(h.fencingToken()).isPositive();
        }
    }

    private static String everything(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c).append('\n');
        }
        return sb.toString();
    }

    /** Runs {@code body} with standard error (where slf4j-simple logs) also copied into the returned text. */
    private static String capturingLogs(ThrowingRunnable body) throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        OutputStream tee = new OutputStream() {
            @Override
            public void write(int b) {
                original.write(b);
                copy.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                original.write(b, off, len);
                copy.write(b, off, len);
            }
        };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.err.flush();
            System.setErr(original);
        }
        return copy.toString(StandardCharsets.UTF_8);
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    @DisplayName(
            "mutual TLS: clients presenting their certificate (tlsCert, tlsKey) lock, exclude each other and unlock")
    void mutualTlsWithClientCertificate() throws Exception {
        try (LockClient a = Latchkey.connect(mutualTls.uri(), settings(mutualTls.connectSettings()));
                LockClient b = Latchkey.connect(mutualTls.uri(), settings(mutualTls.connectSettings()))) {
            assertThat(a.toString()).contains("(TLS)");
            lockAndUnlock(a, "mtls/one");
            LockHandle h = a.lock("mtls/two").tryAcquire().orElseThrow();
            assertThat(b.lock("mtls/two").tryAcquire())
                    .as("exclusion across two mTLS clients")
                    .isEmpty();
            h.release();
            lockAndUnlock(b, "mtls/two");
        }
    }

    @Test
    @DisplayName("mutual TLS: a client without a certificate fails at connect, in one line that names the TLS problem")
    void mutualTlsWithoutClientCertificate() {
        Map<String, String> noCert = settings(
                Map.of("tls", "true", "tlsCa", certificates.caCertificate().toString()), "requestTimeout", "1s");
        assertThatThrownBy(() -> Latchkey.connect(mutualTls.uri(), noCert))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith(
                        "cannot reach etcd://" + hostPorts(mutualTls) + " within 5s: the TLS handshake with"
                                + " etcd failed: the server wants a client certificate it trusts (settings tlsCert and tlsKey)")
                .satisfies(e -> assertThat(((LockException) e).backend()).contains(hostPorts(mutualTls)));
        // the same with the etcds:// scheme (TLS implied): lock-etcd serves it, so the message is about TLS, not a
        // module
        Map<String, String> caOnly =
                settings(Map.of("tlsCa", certificates.caCertificate().toString()), "requestTimeout", "1s");
        assertThatThrownBy(() -> Latchkey.connect("etcds://" + hostPorts(mutualTls), caOnly))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith(
                        "cannot reach etcds://" + hostPorts(mutualTls) + " within 5s: the TLS handshake with"
                                + " etcd failed: the server wants a client certificate it trusts");
    }

    @Test
    @DisplayName(
            "TLS: a CA that does not verify the server, a missing CA file, a certificate without key: each first line names the TLS problem")
    void tlsMisconfigurationsAreNamed() {
        String hosts = hostPorts(mutualTls);
        Map<String, String> otherCa = settings(
                Map.of(
                        "tlsCa",
                        strangers.caCertificate().toString(),
                        "tlsCert",
                        certificates.clientCertificate().toString(),
                        "tlsKey",
                        certificates.clientKey().toString()),
                "requestTimeout",
                "1s");
        assertThatThrownBy(() -> Latchkey.connect("etcds://" + hosts, otherCa))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith(
                        "cannot reach etcds://" + hosts + " within 5s: the TLS handshake with etcd failed: the"
                                + " server's certificate is not signed by a CA this client trusts (setting tlsCa)");
        assertThatThrownBy(() -> Latchkey.connect("etcds://" + hosts, Map.of("tlsCa", "/nonexistent/ca.pem")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("could not set up TLS for etcds://" + hosts
                        + ": tlsCa file '/nonexistent/ca.pem' does not exist");
        assertThatThrownBy(() -> Latchkey.connect(
                        "etcds://" + hosts,
                        Map.of("tlsCa", certificates.directory().toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("could not set up TLS for etcds://" + hosts + ": tlsCa file '")
                .hasMessageEndingWith("' is not a readable file");
        assertThatThrownBy(() -> Latchkey.connect(
                        "etcds://" + hosts,
                        Map.of("tlsCert", certificates.clientCertificate().toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("tlsCert and tlsKey (client certificate and its unencrypted PKCS#8 key) go together");
        assertThatThrownBy(() -> Latchkey.connect("etcds://" + hosts, Map.of("tls", "false")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("an etcds:// URI means TLS");
        // plain text to a TLS port: the server closes the connection, which tells nothing more than "no answer"
        assertThatThrownBy(() -> Latchkey.connect(mutualTls.uri(), settings(Map.of(), "requestTimeout", "1s")))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("cannot reach etcd://" + hosts + " within 5s: ");
    }

    @Test
    @DisplayName(
            "user/password from the URI or from settings: lock and unlock work; the password is in no log and no toString")
    void credentialsWork() throws Exception {
        String uri = "etcd://" + USER + ":" + PASSWORD + "@" + hostPorts(withAuth);
        String logs = capturingLogs(() -> {
            try (LockClient c = Latchkey.connect(uri, settings(Map.of()))) {
                lockAndUnlock(c, "auth/uri");
                assertThat(c.toString()).contains(USER).doesNotContain(PASSWORD);
            }
            try (EtcdLockBackend b = EtcdLockBackend.connect(
                            withAuth.uri(), settings(Map.of(), "user", USER, "password", PASSWORD));
                    LockClient c = Latchkey.client(b)) {
                assertThat(b.toString()).contains(USER).doesNotContain(PASSWORD);
                assertThat(b.description()).doesNotContain(PASSWORD);
                lockAndUnlock(c, "auth/settings");
                LockHandle h = c.lock("auth/exclusive").tryAcquire().orElseThrow();
                try (LockClient other = Latchkey.connect(uri, settings(Map.of()))) {
                    assertThat(other.lock("auth/exclusive").tryAcquire()).isEmpty();
                }
                h.release();
            }
        });
        assertThat(logs).doesNotContain(PASSWORD);
    }

    @Test
    @DisplayName(
            "user/password: a wrong password fails at connect in one line 'authentication failed at etcd://host:port', never echoing it")
    void wrongPassword() throws Exception {
        String hosts = hostPorts(withAuth);
        List<Throwable> failures = new ArrayList<>();
        String logs = capturingLogs(() -> {
            failures.add(catchThrowable(() -> EtcdLockBackend.connect(
                    withAuth.uri(), settings(Map.of(), "user", USER, "password", WRONG_PASSWORD))));
            failures.add(catchThrowable(
                    () -> Latchkey.connect("etcd://" + USER + ":" + WRONG_PASSWORD + "@" + hosts, settings(Map.of()))));
            failures.add(catchThrowable(() -> Latchkey.connect(
                    "etcd://" + USER + ":" + WRONG_PASSWORD.replace("-", "%2D") + "@" + hosts, settings(Map.of()))));
        });
        for (Throwable f : failures) {
            assertThat(f)
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessage("authentication failed at etcd://" + hosts + ": etcd refused the user name or password"
                            + " (settings user and password, or the URI's user info)");
            assertThat(everything(f)).doesNotContain(WRONG_PASSWORD).doesNotContain(WRONG_PASSWORD.replace("-", "%2D"));
        }
        assertThat(logs).doesNotContain(WRONG_PASSWORD);
    }

    @Test
    @DisplayName("user/password: the client's lease and its lock outlive the expiry of etcd's auth token")
    void leaseOutlivesTheAuthToken() throws Exception {
        try (EtcdLockBackend b = EtcdLockBackend.connect(
                        withAuth.uri(), settings(Map.of(), "user", USER, "password", PASSWORD));
                LockClient c = Latchkey.client(b);
                LockClient other =
                        Latchkey.connect(withAuth.uri(), settings(Map.of(), "user", USER, "password", PASSWORD))) {
            // a long lock lease: the core sends no renewal during the test, only the lease keeper's keep-alives go out
            LockHandle h = c.lock(
                            "auth/token-expiry",
                            LockOptions.builder().lease(Duration.ofMinutes(5)).build())
                    .tryAcquire()
                    .orElseThrow();
            long lease = b.leaseId().orElseThrow();
            // the token (1 s TTL) expires several times over while only keep-alives (every ~0.67 s) are sent
            await().during(Duration.ofSeconds(4))
                    .atMost(Duration.ofSeconds(6))
                    .until(() -> h.isValid() && !h.lost().toCompletableFuture().isDone());
            assertThat(b.leaseId()).hasValue(lease);
            assertThat(other.lock("auth/token-expiry").tryAcquire())
                    .as("still held")
                    .isEmpty();
            h.release();
            lockAndUnlock(other, "auth/token-expiry");
        }
    }

    @Test
    @DisplayName(
            "user/password: a namespace outside the role's prefix fails in one line that names the permission needed")
    void namespaceOutsideTheRolesPrefixNamesThePermission() throws Exception {
        try (LockClient c = Latchkey.connect(
                withAuth.uri(), settings(Map.of(), "user", USER, "password", PASSWORD, "namespace", "elsewhere"))) {
            assertThatThrownBy(() -> c.lock("denied").tryAcquire())
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("etcd denied this user access (its role needs readwrite on the namespace's"
                            + " key prefix: etcdctl role grant-permission ROLE readwrite --prefix=true 'NAMESPACE/')")
                    .hasMessageContaining("/elsewhere")
                    .satisfies(e -> {
                        assertThat(e.getMessage()).doesNotContain("\n");
                        assertThat(everything(e)).doesNotContain(PASSWORD);
                    });
        }
    }

    @Test
    @DisplayName("mutual TLS: a client key that is not PKCS#8 (here PKCS#1) is refused at connect, naming the setting")
    void nonPkcs8KeyIsRefused() throws Exception {
        Path pkcs1 = certificates.directory().resolve("client-pkcs1.key");
        Process p = new ProcessBuilder(
                        "openssl",
                        "rsa",
                        "-in",
                        certificates.clientKey().toString(),
                        "-traditional",
                        "-out",
                        pkcs1.toString())
                .redirectErrorStream(true)
                .start();
        p.getInputStream().transferTo(OutputStream.nullOutputStream());
        assertThat(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0)
                .as("openssl rsa -traditional")
                .isTrue();
        assertThat(Files.readString(pkcs1)).contains("BEGIN RSA PRIVATE KEY");
        Map<String, String> s = settings(Map.of(
                "tlsCa",
                certificates.caCertificate().toString(),
                "tlsCert",
                certificates.clientCertificate().toString(),
                "tlsKey",
                pkcs1.toString()));
        assertThatThrownBy(() -> EtcdLockBackend.connect(mutualTls.uri(), s).close())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(hostPorts(mutualTls))
                .hasMessageContaining("tlsKey")
                .hasMessageContaining("PKCS#8")
                .hasMessageContaining("openssl pkcs8 -topk8 -nocrypt");
    }

    private static String hostPorts(EtcdCluster etcd) {
        return etcd.uri().substring("etcd://".length());
    }
}

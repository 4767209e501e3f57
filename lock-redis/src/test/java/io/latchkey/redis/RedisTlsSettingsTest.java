package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.servers.TestCertificates;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.JedisPool;

/**
 * The TLS settings (tls, tlsCa, tlsCert, tlsKey, named as in lock-etcd): their rules, and files that are
 * missing, damaged or in the wrong format, each rejected when the backend is created with an
 * IllegalArgumentException naming the setting and the file, never the password of the URI.
 */
class RedisTlsSettingsTest {
    private static final String SECRET = "settings-Pw-never-shown";
    private static TestCertificates certs;

    @TempDir
    Path dir;

    @BeforeAll
    static void makeCertificates() {
        certs = TestCertificates.create();
    }

    @AfterAll
    static void deleteCertificates() {
        if (certs != null) {
            certs.close();
        }
    }

    private static RedisLockBackend connect(String uri, Map<String, String> settings) {
        return RedisLockBackend.connect(URI.create(uri), settings, false); // no check, no I/O: pools connect lazily
    }

    private static String ca() {
        return certs.caCertificate().toString();
    }

    @Test
    void aCaOrClientCertificateImpliesTlsAndTheSettingsAreShown() {
        RedisSettings s = RedisSettings.fromMap(Map.of(
                "tlsCa",
                ca(),
                "tlsCert",
                certs.clientCertificate().toString(),
                "tlsKey",
                certs.clientKey().toString()));
        assertThat(s.tls()).isTrue();
        assertThat(s.tlsCa()).contains(certs.caCertificate());
        assertThat(s.tlsCert()).contains(certs.clientCertificate());
        assertThat(s.tlsKey()).contains(certs.clientKey());
        assertThat(s.toString()).contains("tls=true").contains("tlsCa=" + ca());
        assertThat(RedisSettings.defaults().tls()).isFalse();
        assertThat(RedisSettings.fromMap(Map.of("tls", "true"))).isNotEqualTo(RedisSettings.defaults());
        assertThat(RedisSettings.fromMap(Map.of("tlsCa", ca())))
                .isEqualTo(RedisSettings.builder().tlsCa(certs.caCertificate()).build());
    }

    @Test
    void validFilesMakeATlsBackendForOneNodeAndForRedlock() {
        try (RedisLockBackend b = connect(
                "rediss://:" + SECRET + "@127.0.0.1:1",
                Map.of(
                        "tlsCa",
                        ca(),
                        "tlsCert",
                        certs.clientCertificate().toString(),
                        "tlsKey",
                        certs.clientKey().toString()))) {
            assertThat(b.description()).isEqualTo("rediss://:***@127.0.0.1:1");
        }
        try (RedisLockBackend b =
                connect("redlock://:" + SECRET + "@127.0.0.1:1,127.0.0.1:2,127.0.0.1:3", Map.of("tlsCa", ca()))) {
            assertThat(b.description()).doesNotContain(SECRET).endsWith("(TLS)");
            assertThat(b.toString()).doesNotContain(SECRET);
        }
        try (RedisLockBackend b = connect("redlock://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3", Map.of("tls", "true"))) {
            assertThat(b.description()).endsWith("(TLS)"); // the JVM's default trust store
        }
        try (RedisLockBackend b = connect("rediss://127.0.0.1:1", Map.of("tls", "true"))) {
            assertThat(b.description()).isEqualTo("rediss://127.0.0.1:1");
        }
    }

    @Test
    void contradictionsAreRejected() {
        assertThatThrownBy(() -> RedisSettings.fromMap(
                        Map.of("tlsCert", certs.clientCertificate().toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tlsCert and tlsKey")
                .hasMessageContaining("both or neither");
        assertThatThrownBy(() ->
                        RedisSettings.fromMap(Map.of("tlsKey", certs.clientKey().toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("both or neither");
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("tls", "false", "tlsCa", ca())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tls=false")
                .hasMessageContaining("tlsCa");
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("tlsCa", " ")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tlsCa")
                .hasMessageContaining("PEM file");
        assertThatThrownBy(() -> connect("redis://:" + SECRET + "@127.0.0.1:1", Map.of("tlsCa", ca())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rediss://")
                .hasMessageNotContaining(SECRET);
        assertThatThrownBy(() -> connect("redis://127.0.0.1:1?tls=true", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rediss://");
        assertThatThrownBy(() -> connect("rediss://:" + SECRET + "@127.0.0.1:1", Map.of("tls", "false")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tls=false")
                .hasMessageNotContaining(SECRET);
    }

    @Test
    void applicationPoolsRejectTlsSettingsInsteadOfIgnoringThem() {
        try (JedisPool pool = new JedisPool("127.0.0.1", 1)) {
            RedisLockBackend.Builder builder = RedisLockBackend.builder(pool)
                    .settings(
                            RedisSettings.builder().tlsCa(certs.caCertificate()).build());
            assertThatThrownBy(builder::build)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("sslSocketFactory")
                    .hasMessageContaining("tlsCa");
        }
    }

    @Test
    void badFilesNameTheSettingAndTheFile() throws IOException {
        Path missing = dir.resolve("missing.pem");
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate\n");
        Path damaged = Files.writeString(
                dir.resolve("damaged.pem"),
                "-----BEGIN CERTIFICATE-----\nAAAAnotbase64!!\n-----END CERTIFICATE-----\n");
        Path pkcs1 = Files.writeString(
                dir.resolve("pkcs1.key"), "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        Path encrypted = Files.writeString(
                dir.resolve("encrypted.key"),
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
        String uri = "rediss://:" + SECRET + "@127.0.0.1:1";
        String cert = certs.clientCertificate().toString();

        assertRejected(uri, Map.of("tlsCa", missing.toString()), "tlsCa", missing, "does not exist");
        assertRejected(uri, Map.of("tlsCa", dir.toString()), "tlsCa", dir, "not a regular file");
        assertRejected(uri, Map.of("tlsCa", garbage.toString()), "tlsCa", garbage, "no PEM certificate");
        assertRejected(uri, Map.of("tlsCa", damaged.toString()), "tlsCa", damaged, "not a valid PEM certificate");
        assertRejected(
                uri,
                Map.of(
                        "tlsCa",
                        ca(),
                        "tlsCert",
                        garbage.toString(),
                        "tlsKey",
                        certs.clientKey().toString()),
                "tlsCert",
                garbage,
                "no PEM certificate");
        assertRejected(uri, Map.of("tlsCert", cert, "tlsKey", missing.toString()), "tlsKey", missing, "does not exist");
        assertRejected(
                uri, Map.of("tlsCert", cert, "tlsKey", pkcs1.toString()), "tlsKey", pkcs1, "openssl pkcs8 -topk8");
        assertRejected(uri, Map.of("tlsCert", cert, "tlsKey", encrypted.toString()), "tlsKey", encrypted, "encrypted");
        // the server's key does not belong to the client certificate
        assertRejected(
                uri,
                Map.of("tlsCert", cert, "tlsKey", certs.serverKey().toString()),
                "tlsKey",
                certs.serverKey(),
                "not the private key of the certificate");
        // a certificate given as the key
        assertRejected(uri, Map.of("tlsCert", cert, "tlsKey", cert), "tlsKey", certs.clientCertificate(), "PKCS#8");
        // the same checks for Redlock
        assertRejected(
                "redlock://:" + SECRET + "@127.0.0.1:1,127.0.0.1:2,127.0.0.1:3",
                Map.of("tls", "true", "tlsCa", garbage.toString()),
                "tlsCa",
                garbage,
                "no PEM certificate");
    }

    private static void assertRejected(
            String uri, Map<String, String> settings, String setting, Path file, String why) {
        assertThatThrownBy(() -> connect(uri, settings).close())
                .as("%s with %s", uri.replace(SECRET, "***"), settings)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(setting + " file " + file)
                .hasMessageContaining(why)
                .satisfies(e -> {
                    for (Throwable t = e; t != null; t = t.getCause()) {
                        assertThat(String.valueOf(t.getMessage())).doesNotContain(SECRET);
                    }
                });
    }

    @Test
    void theKnownSettingsListTheTlsOnes() {
        assertThat(RedisSettings.KEYS).containsAll(List.of("tls", "tlsCa", "tlsCert", "tlsKey"));
        assertThatThrownBy(() -> RedisSettings.fromMap(Map.of("tlsCA", ca())))
                .hasMessageContaining("tlsCa")
                .hasMessageContaining("tlsCert")
                .hasMessageContaining("tlsKey");
    }
}

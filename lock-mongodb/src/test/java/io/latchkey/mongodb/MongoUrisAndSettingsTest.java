package io.latchkey.mongodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.spi.BackendUri;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** URI and settings: what is taken for Latchkey, what goes to the driver, what is rejected, what is never shown. */
class MongoUrisAndSettingsTest {
    private static EmbeddedMongo mongo;

    @BeforeAll
    static void start() {
        mongo = new EmbeddedMongo();
    }

    @AfterAll
    static void stop() {
        mongo.close();
    }

    @Test
    @DisplayName("Latchkey.connect finds the backend by its scheme; the URI's path is the database, options mix")
    void connectsThroughServiceLoaderWithDatabaseCollectionAndNamespace() {
        String uri = "mongodb://" + mongo.hostPort() + "/app?collection=locks&namespace=billing&appName=svc"
                + "&timeout=500ms";
        try (LockClient client = Latchkey.connect(uri);
                LockClient other = Latchkey.connect("mongodb://" + mongo.hostPort() + "/app?collection=locks")) {
            assertThat(client.backend()).startsWith("mongodb://127.0.0.1");
            try (LockHandle h = client.lock("invoice-7").tryAcquire().orElseThrow()) {
                assertThat(h.fencingToken()).isPositive();
                // another namespace does not see it, and can take the same name
                assertThat(other.inspect("invoice-7")).isEmpty();
                assertThat(other.lock("invoice-7").tryAcquire()).isPresent().get().satisfies(LockHandle::release);
                assertThat(client.list("")).extracting(i -> i.name()).containsExactly("invoice-7");
            }
        }
    }

    @Test
    @DisplayName("bad Latchkey settings are rejected with the key and what is allowed, before anything is sent")
    void badSettingsAreRejectedWithWhatIsAllowed() {
        String base = "mongodb://" + mongo.hostPort() + "/";
        assertThatThrownBy(() -> MongoLockBackend.connect(base + "?timeout=0s"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout")
                .hasMessageContaining("between 1ms and 10m");
        assertThatThrownBy(() -> MongoLockBackend.connect(base + "?writeConcern=all"))
                .hasMessageContaining("writeConcern must be one of majority, w1, was 'all'");
        assertThatThrownBy(() -> MongoLockBackend.connect(base + "?readConcern=snapshot"))
                .hasMessageContaining("readConcern must be one of majority, local, linearizable");
        assertThatThrownBy(() -> MongoLockBackend.connect(base + "?changeStreams=yes"))
                .hasMessageContaining("changeStreams must be one of auto, on, off, was 'yes'");
        assertThatThrownBy(() -> MongoLockBackend.connect(base + "?collection=system.locks"))
                .hasMessageContaining("must not start with 'system.'");
        assertThatThrownBy(() -> MongoLockBackend.connect(base + "?database=a.b"))
                .hasMessageContaining("database must not contain '.'");
        assertThatThrownBy(() -> MongoLockBackend.connect(base + "?timeout=150"))
                .hasMessageContaining("has no unit");
        assertThatThrownBy(() -> MongoLockBackend.connect("mongo://" + mongo.hostPort()))
                .hasMessageContaining("expected mongodb://");
        assertThatThrownBy(() -> MongoSettings.builder().namespace("a\u0001b"))
                .hasMessageContaining("namespace must be 0 to 64 letters, digits, '.', '_' or '-', was 'a?b'");
        assertThatThrownBy(() -> MongoLockBackend.connect(base + "?namespace=billing:"))
                .hasMessageContaining("namespace must be 0 to 64 letters");
        assertThat(MongoSettings.defaults())
                .satisfies(s -> {
                    assertThat(s.database()).isEqualTo("latchkey");
                    assertThat(s.collection()).isEqualTo("latchkey_locks");
                    assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(s.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(s.writeConcern()).isEqualTo(MongoSettings.WriteConcernLevel.MAJORITY);
                    assertThat(s.readConcern()).isEqualTo(MongoSettings.ReadConcernLevel.MAJORITY);
                    assertThat(s.changeStreams()).isEqualTo(MongoSettings.ChangeStreamMode.AUTO);
                });
    }

    @Test
    @DisplayName("a closed port fails at connect within connectTimeout, one line naming the store")
    void closedPortFailsWithinTheConnectTimeout() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        long start = System.nanoTime();
        assertThatThrownBy(() -> MongoLockBackend.connect("mongodb://127.0.0.1:" + port + "/?connectTimeout=1s"))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("cannot reach mongodb://127.0.0.1:" + port)
                .hasMessageContaining("within 1s")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1 + 3));
    }

    @Test
    @DisplayName("a password in any form never reaches a message, a description or toString")
    void passwordsAreNeverShown() {
        String secret = "Sup3rSecretPw";
        String host = mongo.hostPort();
        List<Runnable> forms = List.of(
                () -> MongoLockBackend.connect("mongodb://app:" + secret + "@" + host + "/?connectTimeout=2s"),
                () -> MongoLockBackend.connect(BackendUri.toUri("mongodb://" + host + "/?connectTimeout=2s&user=app"
                        + "&password=" + secret), Map.of()),
                () -> MongoLockBackend.connect(
                        BackendUri.toUri("mongodb://" + host + "/?connectTimeout=2s"),
                        Map.of("user", "app", "password", secret)),
                () -> MongoLockBackend.connect("mongodb://" + secret + "@" + host + "/"));
        for (Runnable form : forms) {
            try {
                form.run();
                throw new AssertionError("mongo-java-server has no users: a login was expected to fail");
            } catch (RuntimeException e) {
                for (Throwable t = e; t != null; t = t.getCause()) {
                    assertThat(String.valueOf(t.getMessage())).doesNotContain(secret);
                    assertThat(t.toString()).doesNotContain(secret);
                }
            }
        }
    }
}

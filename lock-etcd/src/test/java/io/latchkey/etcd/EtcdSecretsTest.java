package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.latchkey.Latchkey;
import io.latchkey.etcd.fixtures.EtcdCluster;
import io.latchkey.tck.faults.ConnectProbe;
import io.latchkey.tck.faults.DeadEndpoints;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 12 item 1 for etcd: no form of password ({@code user:pw@}, {@code :pw@}, {@code pw@}, percent-encoded,
 * the {@code password} setting) appears in an exception message or cause, whether the store is reachable (no
 * auth enabled: etcd refuses to authenticate) or not, nor in what is logged at DEBUG in a separate JVM.
 */
class EtcdSecretsTest {
    private static final String SECRET = "S3cretPw";
    private static EtcdCluster etcd;
    private static int closedPort;

    @BeforeAll
    static void start() throws Exception {
        etcd = EtcdCluster.single();
        closedPort = DeadEndpoints.closedPort();
    }

    @AfterAll
    static void stop() {
        if (etcd != null) {
            etcd.close();
        }
    }

    private static List<String> texts(Throwable t) {
        List<String> out = new ArrayList<>();
        for (Throwable c = t; c != null; c = c.getCause()) {
            out.add(String.valueOf(c));
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {"user:" + SECRET + "@", ":" + SECRET + "@", SECRET + "@", "user:S3cret%40Pw@", "S3cret%40Pw@"})
    @DisplayName("no password in any message or cause, reachable or not")
    void noPasswordInMessages(String userInfo) {
        String hosts = etcd.uri().substring("etcd://".length());
        for (String uri : List.of(
                "etcd://" + userInfo + hosts,
                "etcd://" + userInfo + "127.0.0.1:" + closedPort,
                "etcds://" + userInfo + "127.0.0.1:" + closedPort)) {
            Throwable t = catchThrowable(
                    () -> Latchkey.connect(uri, Map.of("requestTimeout", "1s")).close());
            assertThat(t).as(uri).isNotNull();
            assertThat(texts(t)).as(uri).noneMatch(s -> s.contains("S3cret"));
        }
    }

    @Test
    @DisplayName("the password setting is never echoed, also when it is all that is given")
    void passwordSetting() {
        Throwable t =
                catchThrowable(() -> Latchkey.connect(java.net.URI.create(etcd.uri()), Map.of("password", SECRET)));
        assertThat(texts(t)).noneMatch(s -> s.contains("S3cret"));
        t = catchThrowable(() -> Latchkey.connect(
                java.net.URI.create("etcd://127.0.0.1:" + closedPort), Map.of("user", "u", "password", SECRET)));
        assertThat(t)
                .hasMessageStartingWith(
                        "cannot reach etcd://127.0.0.1:" + closedPort + " within 5s: connection refused");
        assertThat(texts(t)).noneMatch(s -> s.contains("S3cret"));
    }

    @Test
    @DisplayName("nothing logged at DEBUG (any library, SLF4J and java.util.logging) carries the password")
    void noPasswordInDebugLogs() throws Exception {
        ConnectProbe.Result p = ConnectProbe.run(
                "debug",
                "etcd://user:" + SECRET + "@" + etcd.uri().substring("etcd://".length()),
                0,
                "requestTimeout=2s");
        assertThat(p.stdout()).anyMatch(l -> l.startsWith("ERROR "));
        assertThat(p.stdout()).noneMatch(l -> l.contains("S3cret"));
        assertThat(p.stderr()).noneMatch(l -> l.contains("S3cret"));
    }
}

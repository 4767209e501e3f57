package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.etcd.fixtures.EtcdCluster;
import io.latchkey.tck.faults.ConnectProbe;
import io.latchkey.tck.faults.DeadEndpoints;
import io.latchkey.tck.faults.DeadEndpoints.SilentPorts;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 item 11: an unreachable etcd is reported by connect within the connect timeout, in one line
 * ({@code cannot reach etcd://host:port within 5s: <reason>}), and nothing jetcd, gRPC or Netty logs reaches
 * stderr at a command-line user's levels (SLF4J at WARN, java.util.logging untouched: its INFO reaches stderr). Two kinds of unreachable: a closed port
 * (connection refused) and a silent port (a socket that accepts and never answers). The logging check runs in
 * a separate JVM ({@link ConnectProbe}), because this JVM's logging is configured for tests.
 */
class UnreachableEtcdTest {
    /** Slack over the connect timeout: JVM and gRPC start-up on a loaded machine. Generous by design. */
    private static final long SLACK_MILLIS = 3000;

    private static SilentPorts silent;
    private static int closedPort;

    @BeforeAll
    static void ports() {
        closedPort = DeadEndpoints.closedPort();
        silent = DeadEndpoints.silentPorts(1);
    }

    @AfterAll
    static void close() {
        silent.close();
    }

    @Test
    @DisplayName(
            "closed port: one line within connectTimeout (default 5s), nothing logged (SLF4J or java.util.logging)")
    void closedPort() throws Exception {
        ConnectProbe.Result p = probe("etcd://127.0.0.1:" + closedPort, 2000);
        assertThat(p.error())
                .startsWith("cannot reach etcd://127.0.0.1:" + closedPort + " within 5s: ")
                .contains("refused");
        assertThat(p.elapsedMillis()).isLessThan(5000 + SLACK_MILLIS);
        assertThat(p.stderr()).as("stderr of the probe JVM").isEmpty();
    }

    @Test
    @DisplayName("silent port (accepts, never answers): one line within connectTimeout, nothing logged, also later")
    void silentPort() throws Exception {
        ConnectProbe.Result p = probe("etcd://127.0.0.1:" + silent.port(), 4000);
        assertThat(p.error())
                .startsWith("cannot reach etcd://127.0.0.1:" + silent.port() + " within 5s: ")
                .contains("did not answer");
        assertThat(p.elapsedMillis()).isLessThan(5000 + SLACK_MILLIS);
        assertThat(p.stderr()).as("stderr of the probe JVM").isEmpty();
    }

    @Test
    @DisplayName("connectTimeout is honoured (1s, 1.5s) on a silent and a closed port")
    void connectTimeoutSetting() {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> Latchkey.connect(
                        URI.create("etcd://127.0.0.1:" + silent.port()), Map.of("connectTimeout", "1s")))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("cannot reach etcd://127.0.0.1:" + silent.port() + " within 1s: ");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1000 + SLACK_MILLIS);
        t0 = System.nanoTime();
        assertThatThrownBy(() -> Latchkey.connect(
                        URI.create("etcd://127.0.0.1:" + closedPort), Map.of("connectTimeout", "1500ms")))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("cannot reach etcd://127.0.0.1:" + closedPort + " within 1.5s: ");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1500 + SLACK_MILLIS);
    }

    @Test
    @DisplayName(
            "a reachable etcd: connect, lock, inspect, list and close print nothing on stderr (no gRPC INFO lines)")
    void reachableIsQuiet() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.single()) {
            ConnectProbe.Result p = probe(etcd.uri(), 0);
            assertThat(p.stdout()).anyMatch(l -> l.startsWith("HELD "));
            assertThat(p.stderr()).as("stderr of the probe JVM").isEmpty();
        }
    }

    /** The probe JVM at a command-line user's levels (lock-cli's simplelogger.properties): WARN for every library. */
    static ConnectProbe.Result probe(String uri, long lingerMillis, String... settings) {
        return ConnectProbe.run("warn", uri, lingerMillis, settings);
    }
}

package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
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
 * Issue 12 item 11: an unreachable ZooKeeper is reported within the connect timeout, in one line
 * ({@code cannot reach zookeeper://host:port within 5s: <reason>}), and nothing the ZooKeeper client or Curator
 * logs reaches stderr at a command-line user's levels (SLF4J at WARN). Two kinds of unreachable: a closed port
 * (connection refused) and a silent port (a socket that accepts and never answers). The logging check runs in
 * a separate JVM ({@link ConnectProbe}), because this JVM's logging is configured for tests.
 */
class UnreachableZooKeeperTest {
    /** Slack over the connect timeout: a reason probe (at most 1 s) and a loaded machine. Generous by design. */
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
    @DisplayName("closed port: one line within connectTimeout (default 5s), nothing logged")
    void closedPort() throws Exception {
        ConnectProbe.Result p = probe("zookeeper://127.0.0.1:" + closedPort, 2000);
        assertThat(p.error())
                .startsWith("cannot reach zookeeper://127.0.0.1:" + closedPort + " within 5s: ")
                .contains("refused");
        assertThat(p.elapsedMillis()).isLessThan(5000 + SLACK_MILLIS);
        assertThat(p.stderr()).as("stderr of the probe JVM").isEmpty();
    }

    @Test
    @DisplayName("silent port (accepts, never answers): one line within connectTimeout, nothing logged, also later")
    void silentPort() throws Exception {
        // sessionTimeout 6s: the ZooKeeper client's own handshake timeout, after which its thread gives up; the
        // probe lingers past it, so a late log line would be seen
        ConnectProbe.Result p = probe("zookeeper://127.0.0.1:" + silent.port() + "?sessionTimeout=6s", 8000);
        assertThat(p.error())
                .startsWith("cannot reach zookeeper://127.0.0.1:" + silent.port() + " within 5s: ")
                .contains("did not answer");
        assertThat(p.elapsedMillis()).isLessThan(5000 + SLACK_MILLIS);
        assertThat(p.stderr()).as("stderr of the probe JVM").isEmpty();
    }

    @Test
    @DisplayName("connectTimeout is the setting (map or query); connectionTimeout stays as its alias")
    void connectTimeoutSetting() {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> Latchkey.connect("zookeeper://127.0.0.1:" + silent.port() + "?connectTimeout=1s"))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("cannot reach zookeeper://127.0.0.1:" + silent.port() + " within 1s: ");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1000 + SLACK_MILLIS);
        t0 = System.nanoTime();
        assertThatThrownBy(() -> Latchkey.connect(
                        URI.create("zookeeper://127.0.0.1:" + closedPort), Map.of("connectionTimeout", "1500ms")))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("cannot reach zookeeper://127.0.0.1:" + closedPort + " within 1.5s: ");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1500 + SLACK_MILLIS);
        assertThatThrownBy(() -> Latchkey.connect(
                        URI.create("zookeeper://127.0.0.1:" + closedPort),
                        Map.of("connectionTimeout", "1s", "connectTimeout", "2s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectTimeout");
    }

    /** The probe JVM at a command-line user's levels (lock-cli's simplelogger.properties): WARN for every library. */
    static ConnectProbe.Result probe(String uri, long lingerMillis, String... settings) {
        return ConnectProbe.run("warn", uri, lingerMillis, settings);
    }
}

package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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
    private static ServerSocket silent;
    private static final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private static int closedPort;

    @BeforeAll
    static void ports() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!silent.isClosed()) {
                try {
                    accepted.add(silent.accept()); // accepts, reads nothing, answers nothing
                } catch (IOException closed) {
                    return;
                }
            }
        }, "silent-zookeeper");
        t.setDaemon(true);
        t.start();
    }

    @AfterAll
    static void close() throws IOException {
        silent.close();
        for (Socket s : accepted) {
            s.close();
        }
    }

    @Test
    @DisplayName("closed port: one line within connectTimeout (default 5s), nothing logged")
    void closedPort() throws Exception {
        Probe p = probe("zookeeper://127.0.0.1:" + closedPort, 2000);
        assertThat(p.error).startsWith("cannot reach zookeeper://127.0.0.1:" + closedPort + " within 5s: ")
                .contains("refused");
        assertThat(p.elapsedMillis).isLessThan(5000 + SLACK_MILLIS);
        assertThat(p.stderr).as("stderr of the probe JVM").isEmpty();
    }

    @Test
    @DisplayName("silent port (accepts, never answers): one line within connectTimeout, nothing logged, also later")
    void silentPort() throws Exception {
        // sessionTimeout 6s: the ZooKeeper client's own handshake timeout, after which its thread gives up; the
        // probe lingers past it, so a late log line would be seen
        Probe p = probe("zookeeper://127.0.0.1:" + silent.getLocalPort() + "?sessionTimeout=6s", 8000);
        assertThat(p.error).startsWith("cannot reach zookeeper://127.0.0.1:" + silent.getLocalPort() + " within 5s: ")
                .contains("did not answer");
        assertThat(p.elapsedMillis).isLessThan(5000 + SLACK_MILLIS);
        assertThat(p.stderr).as("stderr of the probe JVM").isEmpty();
    }

    @Test
    @DisplayName("connectTimeout is the setting (map or query); connectionTimeout stays as its alias")
    void connectTimeoutSetting() {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> Latchkey.connect("zookeeper://127.0.0.1:" + silent.getLocalPort()
                + "?connectTimeout=1s"))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("cannot reach zookeeper://127.0.0.1:" + silent.getLocalPort() + " within 1s: ");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1000 + SLACK_MILLIS);
        t0 = System.nanoTime();
        assertThatThrownBy(() -> Latchkey.connect(URI.create("zookeeper://127.0.0.1:" + closedPort),
                Map.of("connectionTimeout", "1500ms")))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("cannot reach zookeeper://127.0.0.1:" + closedPort + " within 1.5s: ");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1500 + SLACK_MILLIS);
        assertThatThrownBy(() -> Latchkey.connect(URI.create("zookeeper://127.0.0.1:" + closedPort),
                Map.of("connectionTimeout", "1s", "connectTimeout", "2s")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectTimeout");
    }

    record Probe(String error, long elapsedMillis, List<String> stdout, List<String> stderr) {
    }

    static Probe probe(String uri, long lingerMillis, String... settings) throws Exception {
        // a command-line user's levels (lock-cli's simplelogger.properties): WARN for every library
        return probeAt("warn", uri, lingerMillis, settings);
    }

    static Probe probeAt(String level, String uri, long lingerMillis, String... settings) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of(java.toString(),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=" + level,
                "-Dorg.slf4j.simpleLogger.log.org.apache.zookeeper=" + level,
                "-Dorg.slf4j.simpleLogger.log.org.apache.curator=" + level,
                "-Dorg.slf4j.simpleLogger.log.io.latchkey.tck.server=" + level,
                "-cp", System.getProperty("java.class.path"), ConnectProbe.class.getName(), uri, Long.toString(lingerMillis)));
        cmd.addAll(List.of(settings));
        Process process = new ProcessBuilder(cmd).start();
        process.getOutputStream().close();
        var out = new java.io.ByteArrayOutputStream();
        var err = new java.io.ByteArrayOutputStream();
        Thread e = new Thread(() -> {
            try {
                process.getErrorStream().transferTo(err);
            } catch (IOException ignored) {
                // process ended
            }
        });
        e.start();
        process.getInputStream().transferTo(out);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("probe JVM ends").isTrue();
        e.join(10_000);
        List<String> stdout = out.toString(StandardCharsets.UTF_8).lines().toList();
        List<String> stderr = err.toString(StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
        String error = stdout.stream().filter(l -> l.startsWith("ERROR ")).map(l -> l.substring(6)).findFirst()
                .orElse("(no error; stdout: " + stdout + ", stderr: " + stderr + ")");
        long elapsed = stdout.stream().filter(l -> l.startsWith("ELAPSED ")).mapToLong(l -> Long.parseLong(l.substring(8)))
                .findFirst().orElse(-1);
        System.out.printf("probe %s: %d ms, %s%n  stderr: %d lines%n", uri, elapsed, error, stderr.size());
        stderr.stream().limit(40).forEach(l -> System.out.println("  | " + l));
        assertThat(stdout).as("probe finished").contains("DONE");
        return new Probe(error, elapsed, stdout, stderr);
    }
}

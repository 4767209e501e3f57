package io.latchkey.etcd;

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
import io.latchkey.etcd.fixtures.EtcdCluster;
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
        }, "silent-etcd");
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
    @DisplayName("closed port: one line within connectTimeout (default 5s), nothing logged (SLF4J or java.util.logging)")
    void closedPort() throws Exception {
        Probe p = probe("etcd://127.0.0.1:" + closedPort, 2000);
        assertThat(p.error).startsWith("cannot reach etcd://127.0.0.1:" + closedPort + " within 5s: ").contains("refused");
        assertThat(p.elapsedMillis).isLessThan(5000 + SLACK_MILLIS);
        assertThat(p.stderr).as("stderr of the probe JVM").isEmpty();
    }

    @Test
    @DisplayName("silent port (accepts, never answers): one line within connectTimeout, nothing logged, also later")
    void silentPort() throws Exception {
        Probe p = probe("etcd://127.0.0.1:" + silent.getLocalPort(), 4000);
        assertThat(p.error).startsWith("cannot reach etcd://127.0.0.1:" + silent.getLocalPort() + " within 5s: ")
                .contains("did not answer");
        assertThat(p.elapsedMillis).isLessThan(5000 + SLACK_MILLIS);
        assertThat(p.stderr).as("stderr of the probe JVM").isEmpty();
    }

    @Test
    @DisplayName("connectTimeout is honoured (1s, 1.5s) on a silent and a closed port")
    void connectTimeoutSetting() {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> Latchkey.connect(URI.create("etcd://127.0.0.1:" + silent.getLocalPort()),
                Map.of("connectTimeout", "1s")))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("cannot reach etcd://127.0.0.1:" + silent.getLocalPort() + " within 1s: ");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1000 + SLACK_MILLIS);
        t0 = System.nanoTime();
        assertThatThrownBy(() -> Latchkey.connect(URI.create("etcd://127.0.0.1:" + closedPort), Map.of("connectTimeout", "1500ms")))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("cannot reach etcd://127.0.0.1:" + closedPort + " within 1.5s: ");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1500 + SLACK_MILLIS);
    }

    @Test
    @DisplayName("a reachable etcd: connect, lock, inspect, list and close print nothing on stderr (no gRPC INFO lines)")
    void reachableIsQuiet() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.single()) {
            Probe p = probe(etcd.uri(), 0);
            assertThat(p.stdout).anyMatch(l -> l.startsWith("HELD "));
            assertThat(p.stderr).as("stderr of the probe JVM").isEmpty();
        }
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
                "-Dorg.slf4j.simpleLogger.log.io.latchkey.etcd=" + level,
                "-Dorg.slf4j.simpleLogger.log.io.etcd.jetcd=" + level,
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

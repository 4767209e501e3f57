package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.FreePorts;
import io.latchkey.servers.RunningServer;
import io.latchkey.tck.faults.DeadEndpoints;
import io.latchkey.tck.faults.DeadEndpoints.SilentPorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 12, items 2, 4 and 11: a store that cannot be used fails at {@code Latchkey.connect}, within the connect
 * timeout, with one line that a user can search for:
 * <ul>
 *   <li>{@code authentication failed at redis://127.0.0.1:P: WRONGPASS ...} (requirepass and ACL users, one
 *       node and Redlock), never echoing a password;</li>
 *   <li>{@code the server at 127.0.0.1:P did not answer as Redis (redis://127.0.0.1:P): ...} (an HTTP server);</li>
 *   <li>{@code cannot reach redis://127.0.0.1:P within 5s: ...} for a closed port and for a silent port (accepts,
 *       never answers), on one node and on Redlock, with the default and with {@code connectTimeout=1s};</li>
 * </ul>
 * and nothing reaches stderr at the default log levels.
 */
@Timeout(120)
class RedisStoreErrorsTest {
    private static final String DEFAULT_PW = "req-Pw-4471-never-shown";
    private static final String APP_PW = "acl-Pw-9013-never-shown";
    private static final String WRONG = "wrong-Pw-2288";
    /** Slack over the connect timeout for a loaded 2-core machine; generous by design. */
    private static final Duration SLACK = Duration.ofSeconds(3);

    private static List<RunningServer> servers;
    private static SilentPorts silent;

    @BeforeAll
    static void start() throws IOException {
        servers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            servers.add(RedisServers.owned(
                    "--requirepass", DEFAULT_PW, "--user", "app", "on", ">" + APP_PW, "~*", "&*", "+@all"));
        }
        silent = DeadEndpoints.silentPorts(3);
    }

    @AfterAll
    static void stop() throws IOException {
        if (servers != null) {
            servers.forEach(RunningServer::close);
        }
        if (silent != null) {
            silent.close();
        }
    }

    private static String hostPort(int i) {
        return servers.get(i).endpoint().hostAndPort();
    }

    private static String quorumHosts() {
        return hostPort(0) + "," + hostPort(1) + "," + hostPort(2);
    }

    // ------------------------------------------------------------------ item 2: wrong password

    @Test
    void aWrongRequirepassPasswordFailsAtConnectWithOneLineNamingTheHost() {
        assertAuthenticationFailed("redis://:" + WRONG + "@" + hostPort(0), "redis://" + hostPort(0));
        assertAuthenticationFailed("redis://" + WRONG + "@" + hostPort(0), "redis://" + hostPort(0));
    }

    @Test
    void aWrongAclPasswordOrUnknownUserFailsAtConnectWithOneLineNamingTheHost() {
        assertAuthenticationFailed("redis://app:" + WRONG + "@" + hostPort(0), "redis://" + hostPort(0));
        assertAuthenticationFailed("redis://nobody:" + APP_PW + "@" + hostPort(0), "redis://" + hostPort(0));
    }

    @Test
    void noPasswordAtAllOnAServerThatRequiresOneIsAnAuthenticationFailure() {
        assertAuthenticationFailed("redis://" + hostPort(0), "redis://" + hostPort(0));
    }

    @Test
    void aWrongPasswordOnRedlockFailsAtConnectWithOneLineNamingTheHosts() {
        assertAuthenticationFailed("redlock://:" + WRONG + "@" + quorumHosts(), "redlock://" + quorumHosts());
        assertAuthenticationFailed("redlock://app:" + WRONG + "@" + quorumHosts(), "redlock://" + quorumHosts());
    }

    @Test
    void theRightPasswordsStillConnect() {
        for (String uri : List.of(
                "redis://:" + DEFAULT_PW + "@" + hostPort(0),
                "redis://app:" + APP_PW + "@" + hostPort(0),
                "redlock://app:" + APP_PW + "@" + quorumHosts() + "?timeout=1s")) {
            try (LockClient client = Latchkey.connect(uri)) {
                client.lock("errors/ok").tryAcquire().orElseThrow().close();
            }
        }
    }

    private static void assertAuthenticationFailed(String uri, String target) {
        try (CapturedLogs stderr = CapturedLogs.atDefaultLevels()) {
            assertThatThrownBy(() -> Latchkey.connect(uri).close())
                    .isInstanceOf(BackendUnavailableException.class)
                    .satisfies(e -> {
                        assertThat(e.getMessage())
                                .startsWith("authentication failed at " + target + ": ")
                                .doesNotContain("\n");
                        assertThat(e.getMessage()).containsAnyOf("WRONGPASS", "NOAUTH");
                        assertNoPassword(e);
                    });
            assertThat(stderr.text()).as("nothing on stderr at default levels").isEmpty();
        }
    }

    // ------------------------------------------------------------------ item 4: not Redis

    @Test
    void anHttpServerIsNamedAsNotRedisWithThePasswordRedacted() throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/", exchange -> {
            byte[] body = "<html>not redis</html>".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(400, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        http.start();
        try {
            String hp = "127.0.0.1:" + http.getAddress().getPort();
            for (String uri : List.of("redis://:" + DEFAULT_PW + "@" + hp, "redis://" + hp)) {
                assertThatThrownBy(() -> Latchkey.connect(uri).close())
                        .isInstanceOf(BackendUnavailableException.class)
                        .satisfies(e -> {
                            assertThat(e.getMessage())
                                    .startsWith(
                                            "the server at " + hp + " did not answer as Redis (redis://" + hp + "): ")
                                    .doesNotContain("\n");
                            assertNoPassword(e);
                        });
            }
        } finally {
            http.stop(0);
        }
    }

    @Test
    void aPortThatClosesPlainTextConnectionsIsNotRedisEither() throws IOException {
        try (ServerSocket closing = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                while (!closing.isClosed()) {
                    try (Socket s = closing.accept()) {
                        s.getInputStream().read(); // read the first byte of AUTH/PING, then hang up, as a TLS port does
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            t.setDaemon(true);
            t.start();
            String hp = "127.0.0.1:" + closing.getLocalPort();
            assertThatThrownBy(() -> Latchkey.connect("redis://" + hp).close())
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageStartingWith("the server at " + hp + " did not answer as Redis (redis://" + hp + "): ")
                    .hasMessageContaining("rediss://");
        }
    }

    // ------------------------------------------------------------------ item 11: unreachable

    @Test
    void aClosedPortFailsAtOnceWithOneLine() {
        int port = FreePorts.find();
        assertCannotReach(
                "redis://:" + DEFAULT_PW + "@127.0.0.1:" + port,
                Map.of(),
                "redis://127.0.0.1:" + port,
                "5s",
                Duration.ofSeconds(5));
        List<Integer> ports = FreePorts.find(3);
        String hosts = "127.0.0.1:" + ports.get(0) + ",127.0.0.1:" + ports.get(1) + ",127.0.0.1:" + ports.get(2);
        assertCannotReach("redlock://" + hosts, Map.of(), "redlock://" + hosts, "5s", Duration.ofSeconds(5));
    }

    @Test
    void aSilentPortFailsWithinTheDefaultConnectTimeoutOf5s() {
        String hp = silent.hostPort(0);
        assertCannotReach("redis://:" + DEFAULT_PW + "@" + hp, Map.of(), "redis://" + hp, "5s", Duration.ofSeconds(5));
    }

    @Test
    void aSilentPortFailsWithinAConnectTimeoutOf1sFromTheUriOrTheSettings() {
        String hp = silent.hostPort(0);
        assertCannotReach(
                "redis://" + hp + "?connectTimeout=1s", Map.of(), "redis://" + hp, "1s", Duration.ofSeconds(1));
        assertCannotReach(
                "redis://" + hp, Map.of("connectTimeout", "1s"), "redis://" + hp, "1s", Duration.ofSeconds(1));
    }

    @Test
    void redlockOnSilentPortsFailsWithinTheConnectTimeout() {
        String hosts = silent.hostPort(0) + "," + silent.hostPort(1) + "," + silent.hostPort(2);
        assertCannotReach("redlock://" + hosts, Map.of(), "redlock://" + hosts, "5s", Duration.ofSeconds(5));
        assertCannotReach(
                "redlock://" + hosts + "?connectTimeout=1s",
                Map.of(),
                "redlock://" + hosts,
                "1s",
                Duration.ofSeconds(1));
    }

    @Test
    void redlockWithAQuorumOfLiveNodesConnectsAndOneWithoutFails() {
        // one silent node of three: the quorum answers, locking works
        String oneDown = hostPort(0) + "," + hostPort(1) + "," + silent.hostPort(0);
        try (LockClient client =
                Latchkey.connect("redlock://app:" + APP_PW + "@" + oneDown + "?connectTimeout=1s&timeout=1s")) {
            client.lock("errors/quorum").tryAcquire().orElseThrow().close();
        }
        // two of three: no quorum
        String twoDown = hostPort(0) + "," + silent.hostPort(0) + "," + silent.hostPort(1);
        assertCannotReach(
                "redlock://app:" + APP_PW + "@" + twoDown + "?connectTimeout=1s",
                Map.of(),
                "redlock://" + twoDown,
                "1s",
                Duration.ofSeconds(1));
    }

    private static void assertCannotReach(
            String uri, Map<String, String> settings, String target, String shown, Duration connectTimeout) {
        assertCannotReach(uri, settings, target, shown, connectTimeout, shownReason(uri));
    }

    /** What a closed port and a silent one say. */
    private static String shownReason(String uri) {
        return uri.contains(silent.hostPort(0)) ? "no answer" : "connection refused";
    }

    private static void assertCannotReach(
            String uri,
            Map<String, String> settings,
            String target,
            String shown,
            Duration connectTimeout,
            String reason) {
        try (CapturedLogs stderr = CapturedLogs.atDefaultLevels()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> Latchkey.connect(uri, settings).close())
                    .isInstanceOf(BackendUnavailableException.class)
                    .satisfies(e -> {
                        assertThat(e.getMessage())
                                .startsWith("cannot reach " + target + " within " + shown + ": ")
                                .contains(reason)
                                .doesNotContain("\n");
                        assertNoPassword(e);
                    });
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).as("failed within connectTimeout + slack").isLessThan(connectTimeout.plus(SLACK));
            assertThat(stderr.text()).as("nothing on stderr at default levels").isEmpty();
        }
    }

    private static void assertNoPassword(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            assertThat(String.valueOf(t.getMessage()))
                    .doesNotContain(WRONG)
                    .doesNotContain(DEFAULT_PW)
                    .doesNotContain(APP_PW);
        }
        if (error instanceof BackendUnavailableException b) {
            assertThat(String.valueOf(b.backend()))
                    .doesNotContain(WRONG)
                    .doesNotContain(DEFAULT_PW)
                    .doesNotContain(APP_PW);
        }
    }
}

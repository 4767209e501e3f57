package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 12, item 11, the CLI's part: a store that cannot be reached (a closed port) is reported in exactly
 * one line on stderr, the backend's {@code cannot reach <scheme>://host:port within 5s: <reason>}, with exit
 * 69 and within the default connect timeout (5 s, plus a generous allowance for starting the JVM on a busy
 * machine). No library logging reaches stderr: not gRPC's java.util.logging INFO lines ("Epoll available"),
 * not ZooKeeper's connection-loss warnings, not a backend's own warnings.
 */
class UnreachableStoreIT {
    /** The documented default connect timeout. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** Starting a JVM and loading the backend on a loaded 2-core machine; generous by design. */
    static final Duration JVM_ALLOWANCE = Duration.ofSeconds(15);

    @TempDir
    static Path temp;

    static LatchkeyJar cli;

    @BeforeAll
    static void start() {
        cli = new LatchkeyJar(temp);
    }

    @AfterAll
    static void stop() {
        cli.close();
    }

    static Stream<Arguments> schemes() throws IOException {
        int p = closedPort();
        String h = "127.0.0.1:" + p;
        return Stream.of(
                Arguments.of("redis", "redis://" + h, "redis://" + h),
                Arguments.of("rediss", "rediss://" + h, "rediss://" + h),
                Arguments.of(
                        "redlock",
                        "redlock://" + h + ",127.0.0.1:" + closedPort() + ",127.0.0.1:" + closedPort(),
                        "redlock://" + h),
                Arguments.of("jdbc:postgresql", "jdbc:postgresql://" + h + "/db?user=u", "jdbc:postgresql://" + h),
                Arguments.of("jdbc:mariadb", "jdbc:mariadb://" + h + "/db?user=u", "jdbc:mariadb://" + h),
                Arguments.of("jdbc:mysql", "jdbc:mysql://" + h + "/db?user=u", "jdbc:mysql://" + h),
                Arguments.of("jdbc:h2", "jdbc:h2:tcp://" + h + "/mem:x", "jdbc:h2:tcp://" + h),
                Arguments.of("zookeeper", "zookeeper://" + h, "zookeeper://" + h),
                Arguments.of("etcd", "etcd://" + h, "etcd://" + h),
                Arguments.of("etcds", "etcds://" + h, "etcds://" + h));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("schemes")
    void aClosedPortIsOneLineExit69WithinTheConnectTimeout(String scheme, String uri, String target) {
        long start = System.nanoTime();
        LatchkeyJar.Result r = cli.run("exec", "--backend", uri, "--name", "unreachable", "--", "true");
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(r.exit()).as(r.toString()).isEqualTo(ExitCodes.BACKEND_UNAVAILABLE);
        assertThat(r.stderr().lines()).as(r.toString()).hasSize(1);
        assertThat(r.stderr())
                .as(r.toString())
                .startsWith("latchkey exec: backend unavailable: cannot reach " + target)
                .contains(" within 5s: ");
        assertThat(r.stdout()).as(r.toString()).isEmpty();
        assertThat(took).as("time to the error, %s", r).isLessThan(CONNECT_TIMEOUT.plus(JVM_ALLOWANCE));
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}

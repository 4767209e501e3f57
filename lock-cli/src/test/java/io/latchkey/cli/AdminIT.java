package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.servers.Binaries;
import io.latchkey.servers.FreePorts;
import io.latchkey.servers.ReadinessCheck;
import io.latchkey.servers.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code list}, {@code inspect} and {@code release --force}, in text and JSON, against locks that other
 * {@code latchkey exec} processes hold — on the embedded H2 default and on a real Redis server (the CLI has
 * no backend-specific code, so one network backend shows it works through a URI like any other).
 */
class AdminIT {
    @TempDir
    static Path temp;

    static LatchkeyJar cli;
    static ServerProcess redis;

    @BeforeAll
    static void start() {
        cli = new LatchkeyJar(temp);
        Optional<Path> binary = Binaries.find("redis-server");
        if (binary.isPresent()) {
            int port = FreePorts.find();
            redis = ServerProcess.builder()
                    .name("redis-server for AdminIT")
                    .command(
                            binary.get().toString(),
                            "--port",
                            Integer.toString(port),
                            "--bind",
                            "127.0.0.1",
                            "--save",
                            "",
                            "--appendonly",
                            "no")
                    .readiness(ReadinessCheck.tcpPortOpen(port))
                    .start();
        }
    }

    @AfterAll
    static void stop() {
        cli.close();
        if (redis != null) {
            redis.close();
        }
    }

    static Stream<Arguments> backends() {
        return Stream.of(Arguments.of("embedded H2 default", List.of()), Arguments.of("redis", List.of("redis")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void listInspectAndForcedRelease(String label, List<String> which) {
        List<String> backend = new ArrayList<>();
        if (!which.isEmpty()) {
            boolean required = "true".equalsIgnoreCase(System.getenv("LATCHKEY_REQUIRE_SERVERS"));
            if (redis == null && required) {
                throw new AssertionError(
                        "redis-server is not installed (Debian: apt-get install redis-server) and LATCHKEY_REQUIRE_SERVERS=true");
            }
            Assumptions.assumeTrue(
                    redis != null, "redis-server is not installed (Debian: apt-get install redis-server)");
            backend.addAll(
                    List.of("--backend", "redis://127.0.0.1:" + redis.command().get(2)));
        }
        String prefix = "admin-" + label.charAt(0) + "/";
        LatchkeyJar.Running daily = hold(backend, prefix + "daily");
        LatchkeyJar.Running weekly = hold(backend, prefix + "weekly");
        try {
            LatchkeyJar.Result all = cli.run(args(backend, "list", "--prefix", prefix, "--json"));
            assertThat(all.exit()).as(all.toString()).isZero();
            assertThat(all.stdout()).contains("\"name\":\"" + prefix + "daily\"", "\"name\":\"" + prefix + "weekly\"");

            LatchkeyJar.Result table = cli.run(args(backend, "list", "--prefix", prefix + "d"));
            assertThat(table.stdout())
                    .as(table.toString())
                    .startsWith("NAME")
                    .contains("OWNER", "TOKEN", "EXPIRES")
                    .contains(prefix + "daily")
                    .doesNotContain(prefix + "weekly");

            LatchkeyJar.Result inspect = cli.run(args(backend, "inspect", "--json", prefix + "daily"));
            assertThat(inspect.exit()).as(inspect.toString()).isZero();
            assertThat(inspect.stdout())
                    .contains(
                            "\"held\":true",
                            "\"owner\":\"",
                            "/" + daily.process.pid() + "/",
                            "\"fencingToken\":",
                            "\"expiresAt\":\"");

            LatchkeyJar.Result text = cli.run(args(backend, "inspect", prefix + "daily"));
            assertThat(text.stdout()).as(text.toString()).contains("owner:", "token:", "expires:");

            LatchkeyJar.Result release = cli.run(args(backend, "release", "--force", "--json", prefix + "daily"));
            assertThat(release.exit()).as(release.toString()).isZero();
            assertThat(release.stdout()).contains("\"released\":true");
            LatchkeyJar.Result holder = daily.await(Duration.ofSeconds(60));
            assertThat(holder.exit())
                    .as("the holder lost the lock and stopped its command: " + holder)
                    .isEqualTo(ExitCodes.LOCK_LOST);
            assertThat(holder.stderr()).contains("RELEASED_BY_ADMIN");

            LatchkeyJar.Result again = cli.run(args(backend, "release", "--force", "--json", prefix + "daily"));
            assertThat(again.exit()).as(again.toString()).isEqualTo(ExitCodes.NEGATIVE);
            assertThat(again.stdout()).contains("\"released\":false");
            LatchkeyJar.Result gone = cli.run(args(backend, "inspect", "--json", prefix + "daily"));
            assertThat(gone.exit()).isEqualTo(ExitCodes.NEGATIVE);
            assertThat(gone.stdout().trim()).isEqualTo("{\"name\":\"" + prefix + "daily\",\"held\":false}");
        } finally {
            weekly.signal("TERM");
            weekly.await(Duration.ofSeconds(60));
        }
        assertThat(cli.run(args(backend, "list", "--prefix", prefix, "--json"))
                        .stdout()
                        .trim())
                .isEqualTo("[]");
    }

    private static LatchkeyJar.Running hold(List<String> backend, String name) {
        LatchkeyJar.Running r = cli.start(
                args(backend, "exec", "--name", name, "--lease", "3s", "--", "sh", "-c", "echo started; sleep 120"));
        await().atMost(Duration.ofSeconds(60)).until(() -> r.stdout().contains("started"));
        return r;
    }

    private static String[] args(List<String> backend, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        int at = all.contains("--") ? all.indexOf("--") : all.size();
        if (all.contains("--")) {
            all.addAll(at, backend);
        } else {
            all.addAll(1, backend);
        }
        return all.toArray(String[]::new);
    }
}

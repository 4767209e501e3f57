package io.latchkey.servers;

import static io.latchkey.servers.TestServers.answers;
import static io.latchkey.servers.TestServers.httpHead;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The selection order of {@link ServerFixture}, with a simulated environment and Docker probe so that the
 * real machine's variables and engine do not matter.
 */
@Timeout(30)
class ServerFixtureTest {

    private static final String URI_VARIABLE = "LATCHKEY_FAKE_URI";
    private static final String MISSING_BINARY = "latchkey-no-such-server";
    private static final DockerProbe.Status NO_DOCKER = new DockerProbe.Status(false, "no Docker engine (simulated)");
    private static final DockerProbe.Status DOCKER = new DockerProbe.Status(true, "Docker engine (simulated)");

    private final Map<String, String> environment = new HashMap<>();
    private RunningServer acquired;

    @TempDir
    Path binDirectory;

    @BeforeEach
    void emptyPath() {
        environment.put("PATH", "/nonexistent-bin-dir");
    }

    @AfterEach
    void release() {
        if (acquired != null) {
            acquired.close();
        }
    }

    private ServerFixture fixture() {
        return ServerFixture.named("fake").withEnvironment(environment::get).withDockerProbe(() -> NO_DOCKER);
    }

    private static BinaryLauncher mustNotLaunch() {
        return binary -> fail("the PATH option must not be tried, but was called with " + binary);
    }

    @Test
    void anEndpointFromTheEnvironmentComesFirstAndCannotBeFaultInjected() {
        environment.put(URI_VARIABLE, "fake://127.0.0.1:7777/db");
        environment.put("PATH", "/bin:/usr/bin"); // sh exists there: the PATH option would be possible

        acquired = fixture()
                .fromEnv(URI_VARIABLE, Endpoint::parseUri)
                .fromPath("sh", mustNotLaunch())
                .acquire();

        assertThat(acquired.origin()).isEqualTo(ServerOrigin.ENVIRONMENT);
        assertThat(acquired.endpoint().host()).isEqualTo("127.0.0.1");
        assertThat(acquired.endpoint().port()).isEqualTo(7777);
        assertThat(acquired.endpoint().uri()).hasValue("fake://127.0.0.1:7777/db");
        assertThat(acquired.description()).contains(URI_VARIABLE);
        assertThat(acquired.canInjectFaults()).isFalse();
        assertThatThrownBy(acquired::requireFaultInjection)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("fault injection")
                .hasMessageContaining(URI_VARIABLE);
    }

    @Test
    void anUnparsableEndpointVariableFailsInsteadOfFallingBack() {
        environment.put(URI_VARIABLE, "not a uri");

        assertThatThrownBy(() ->
                        fixture().fromEnv(URI_VARIABLE, Endpoint::parseUri).acquire())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(URI_VARIABLE)
                .hasMessageContaining("not a uri");
    }

    @Test
    void withNothingAvailableEveryReasonIsGiven() {
        ServerFixture fixture = fixture()
                .fromEnv(URI_VARIABLE, Endpoint::parseUri)
                .fromPath(MISSING_BINARY, "fake-server-package", mustNotLaunch())
                .fromTestcontainers(() -> fail("Testcontainers must not be tried without Docker"));

        assertThatThrownBy(fixture::acquire)
                .isInstanceOf(ServerUnavailableException.class)
                .hasMessageContaining("No fake server is available. Tried, in order:")
                .hasMessageContaining("1. environment variable " + URI_VARIABLE + ": not set")
                .hasMessageContaining("2. binary " + MISSING_BINARY + ": not found")
                .hasMessageContaining("/nonexistent-bin-dir")
                .hasMessageContaining("/usr/sbin")
                .hasMessageContaining("apt-get install fake-server-package")
                .hasMessageContaining("3. Testcontainers: no Docker engine (simulated)")
                .hasMessageContaining("4. embedded server: not declared for fake");
    }

    @Test
    void aBinaryOnThePathIsLaunchedAndCanBeFaultInjected() throws IOException {
        Path fake = binDirectory.resolve("latchkey-fake-server");
        Files.writeString(fake, "#!/bin/sh\nexec " + TestServers.PYTHON + " -m http.server \"$1\" --bind 127.0.0.1\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        environment.put("PATH", binDirectory.toString());
        AtomicBoolean embeddedTried = new AtomicBoolean();

        acquired = fixture()
                .fromEnv(URI_VARIABLE, Endpoint::parseUri)
                .fromPath("latchkey-fake-server", binary -> {
                    int port = FreePorts.find();
                    ServerProcess process = ServerProcess.builder()
                            .command(binary.toString(), Integer.toString(port))
                            .readiness(ReadinessCheck.tcpPortOpen(port))
                            .startupTimeout(Duration.ofSeconds(15))
                            .start();
                    return RunningServer.ownedProcess(Endpoint.of("127.0.0.1", port), process);
                })
                .embedded(() -> {
                    embeddedTried.set(true);
                    return RunningServer.external(Endpoint.of("127.0.0.1", 1));
                })
                .acquire();

        int port = acquired.endpoint().port();
        assertThat(embeddedTried).isFalse();
        assertThat(acquired.origin()).isEqualTo(ServerOrigin.PATH_BINARY);
        assertThat(acquired.description()).contains(fake.toString());
        assertThat(answers(port)).isTrue();

        ServerControl control = acquired.requireFaultInjection();
        control.pause();
        assertThatThrownBy(() -> httpHead(port, Duration.ofMillis(500))).isInstanceOf(SocketTimeoutException.class);
        control.resume();
        await().atMost(Duration.ofSeconds(5)).until(() -> answers(port));

        acquired.close();
        assertThat(control.isAlive()).isFalse();
        assertThat(answers(port)).isFalse();
    }

    /** Launches "sh" as a server that exits with 7 before it is ready, as a misconfigured server would. */
    private static BinaryLauncher exitingServer() {
        return binary -> {
            ServerProcess.builder()
                    .command(binary.toString(), "-c", "echo cannot open data dir; exit 7")
                    .readiness(ReadinessCheck.tcpPortOpen(FreePorts.find()))
                    .start()
                    .close();
            throw new AssertionError("unreachable: the script exits before it is ready");
        };
    }

    @Test
    void aBinaryThatFailsToStartIsReportedAndTheNextOptionIsUsed() {
        environment.put("PATH", "/bin:/usr/bin");
        AtomicInteger embeddedClosed = new AtomicInteger();

        acquired = fixture()
                .fromPath("sh", exitingServer())
                .embedded(() -> RunningServer.of(Endpoint.of("127.0.0.1", 6000), null, embeddedClosed::incrementAndGet))
                .acquire();

        assertThat(acquired.origin()).isEqualTo(ServerOrigin.EMBEDDED);
        assertThat(acquired.endpoint().port()).isEqualTo(6000);
        acquired.close();
        acquired.close();
        assertThat(embeddedClosed).hasValue(1);
    }

    @Test
    void aBinaryThatFailsToStartIsQuotedInTheMessage() {
        environment.put("PATH", "/bin:/usr/bin");
        ServerFixture fixture = fixture().fromPath("sh", exitingServer());

        assertThatThrownBy(fixture::acquire)
                .isInstanceOf(ServerUnavailableException.class)
                .hasMessageContaining("binary sh: found at ")
                .hasMessageContaining("did not start")
                .hasMessageContaining("exited with code 7")
                .hasMessageContaining("cannot open data dir");
    }

    @Test
    void testcontainersIsTriedOnlyWhenDockerIsAvailable() {
        AtomicInteger containersStarted = new AtomicInteger();
        ServerLauncher container = () -> {
            containersStarted.incrementAndGet();
            return RunningServer.external(Endpoint.of("127.0.0.1", 5000));
        };
        ServerLauncher embedded = () -> RunningServer.external(Endpoint.of("127.0.0.1", 6000));

        try (RunningServer withoutDocker =
                fixture().fromTestcontainers(container).embedded(embedded).acquire()) {
            assertThat(withoutDocker.origin()).isEqualTo(ServerOrigin.EMBEDDED);
            assertThat(containersStarted).hasValue(0);
        }
        try (RunningServer withDocker = fixture()
                .withDockerProbe(() -> DOCKER)
                .fromTestcontainers(container)
                .embedded(embedded)
                .acquire()) {
            assertThat(withDocker.origin()).isEqualTo(ServerOrigin.TESTCONTAINERS);
            assertThat(withDocker.endpoint().port()).isEqualTo(5000);
            assertThat(containersStarted).hasValue(1);
        }
    }

    @Test
    void anEmbeddedServerWhoseClassesAreMissingIsReportedAsUnavailable() {
        ServerFixture fixture = fixture().embedded(() -> {
            throw new NoClassDefFoundError("org/apache/curator/test/TestingServer");
        });

        assertThatThrownBy(fixture::acquire)
                .isInstanceOf(ServerUnavailableException.class)
                .hasMessageContaining("embedded server: classes it needs are not on the classpath")
                .hasMessageContaining("TestingServer");
    }

    @Test
    void optionsMustBeDeclaredInTheOrderTheyAreTried() {
        assertThatThrownBy(() -> fixture().embedded(() -> null).fromPath("redis-server", mustNotLaunch()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("binary on PATH cannot come after embedded server");
        assertThatThrownBy(() -> fixture().acquire())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("declares no options");
        assertThatThrownBy(() -> fixture().fromPath("bin/redis", mustNotLaunch()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bare file name");
    }

    @Test
    void theRealDockerProbeAnswersWithAReason() {
        DockerProbe.Status status = DockerProbe.check();

        assertThat(status.detail()).isNotBlank();
        assertThat(DockerProbe.check()).isSameAs(status); // probed once per JVM
    }
}

package io.latchkey.tck.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.servers.Endpoint;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.ServerFixture;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** The JUnit policy: a missing server skips the test, or fails it with {@code LATCHKEY_REQUIRE_SERVERS=true}. */
class TckServersTest {

    private static final String URI_VARIABLE = "LATCHKEY_FAKE_URI";
    private static final String MISSING_BINARY = "latchkey-no-such-server";

    private final Map<String, String> environment = new HashMap<>(Map.of("PATH", "/nonexistent-bin-dir"));

    private ServerFixture fixture() {
        return TckServers.named("fake")
                .withEnvironment(environment::get)
                .fromEnv(URI_VARIABLE, Endpoint::parseUri)
                .fromPath(MISSING_BINARY, "fake-server-package", binary -> {
                    throw new AssertionError("the PATH option must not be tried");
                });
    }

    @Test
    void withNothingAvailableTheTestIsSkippedWithEveryReason() {
        assertThat(TckServers.serversRequired(environment::get)).isFalse();
        assertThatThrownBy(fixture()::acquire)
                .isInstanceOf(TestAbortedException.class)
                .hasMessageContaining("No fake server is available, so this test is skipped")
                .hasMessageContaining("1. environment variable " + URI_VARIABLE + ": not set")
                .hasMessageContaining("2. binary " + MISSING_BINARY + ": not found")
                .hasMessageContaining("apt-get install fake-server-package")
                .hasMessageContaining(TckServers.REQUIRE_SERVERS_VARIABLE);
    }

    @Test
    void withServersRequiredNothingAvailableIsAFailure() {
        environment.put(TckServers.REQUIRE_SERVERS_VARIABLE, "true");

        assertThat(TckServers.serversRequired(environment::get)).isTrue();
        assertThatThrownBy(fixture()::acquire)
                .isInstanceOf(AssertionError.class)
                .isNotInstanceOf(TestAbortedException.class)
                .hasMessageContaining("LATCHKEY_REQUIRE_SERVERS=true, so this test fails")
                .hasMessageContaining(URI_VARIABLE + ": not set")
                .hasMessageContaining(MISSING_BINARY + ": not found")
                .hasMessageContaining("Testcontainers: not declared for fake");
    }

    @Test
    void aServerFromTheEnvironmentSkipsAFaultTest() {
        environment.put(URI_VARIABLE, "fake://127.0.0.1:7777/db");

        try (RunningServer server = fixture().acquire()) {
            assertThat(server.canInjectFaults()).isFalse();
            assertThatThrownBy(server::requireFaultInjection)
                    .isInstanceOf(TestAbortedException.class)
                    .hasMessageContaining("fault injection")
                    .hasMessageContaining(URI_VARIABLE);
        }
    }
}

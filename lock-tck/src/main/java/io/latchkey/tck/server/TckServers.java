package io.latchkey.tck.server;

import io.latchkey.servers.ServerFixture;
import io.latchkey.servers.ServerUnavailableException;
import io.latchkey.servers.UnavailablePolicy;
import java.util.function.Function;
import org.opentest4j.TestAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JUnit side of the server fixtures of {@code io.latchkey.servers}: a test whose server is unavailable is
 * skipped ({@link TestAbortedException}) with a message that says why each option was unavailable, unless
 * {@value #REQUIRE_SERVERS_VARIABLE}{@code =true} (CI), where it fails with an {@link AssertionError} carrying
 * the same message. A fault test on a server the fixture cannot control is skipped.
 *
 * <pre>{@code
 * try (RunningServer redis = TckServers.named("redis").fromPath("redis-server", ...).acquire()) { ... }
 * }</pre>
 *
 * <p>Stateless: the policy reads the fixture's environment at the moment a server is missing.
 */
public final class TckServers implements UnavailablePolicy {

    /** The environment variable that turns "no server, skip" into "no server, fail". */
    public static final String REQUIRE_SERVERS_VARIABLE = "LATCHKEY_REQUIRE_SERVERS";

    /** Skip, or fail when servers are required. */
    public static final UnavailablePolicy SKIP_OR_FAIL = new TckServers();

    private static final Logger LOG = LoggerFactory.getLogger(TckServers.class);

    private TckServers() {}

    /**
     * A fixture for a JUnit test: {@link ServerFixture#named(String)} with the skip-or-fail policy.
     *
     * @param serverName what the server is, for messages, e.g. "redis" or "PostgreSQL"
     * @return a fixture with no options yet
     */
    public static ServerFixture named(String serverName) {
        return ServerFixture.named(serverName).whenUnavailable(SKIP_OR_FAIL);
    }

    /**
     * Whether {@value #REQUIRE_SERVERS_VARIABLE} is {@code true} in an environment.
     *
     * @param environment variable name to value, {@code null} when unset (e.g. {@code System::getenv})
     * @return {@code true} if a missing server fails tests instead of skipping them
     */
    public static boolean serversRequired(Function<String, String> environment) {
        String value = environment.apply(REQUIRE_SERVERS_VARIABLE);
        return value != null && value.trim().equalsIgnoreCase("true");
    }

    /**
     * The skip (returned, for {@code throw}) or, when servers are required, the failure (thrown here, since
     * an {@link AssertionError} is not a {@link RuntimeException}).
     */
    @Override
    public RuntimeException noServer(ServerUnavailableException unavailable, Function<String, String> environment) {
        if (!serversRequired(environment)) {
            String text = unavailable.explain(
                    ", so this test is skipped (with " + REQUIRE_SERVERS_VARIABLE + "=true it would fail).");
            LOG.info("{}", text);
            return new TestAbortedException(text);
        }
        AssertionError error = new AssertionError(unavailable.explain(
                " and " + REQUIRE_SERVERS_VARIABLE + "=true, so this test fails instead of being skipped."));
        if (unavailable.getCause() != null) {
            error.initCause(unavailable.getCause());
        }
        for (Throwable suppressed : unavailable.getSuppressed()) {
            error.addSuppressed(suppressed);
        }
        throw error;
    }

    /** A JUnit assumption failure: such a server is someone else's, which fault tests must not freeze or kill. */
    @Override
    public RuntimeException noFaultInjection(String message) {
        return new TestAbortedException(message);
    }
}

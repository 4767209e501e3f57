package io.latchkey.spring.boot;

import io.latchkey.LockClient;
import java.time.Duration;
import java.util.Optional;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP when the store answers one read ({@code inspect} of a name nobody locks), with the backend (never a password),
 * the round trip and the number of locks this client holds; DOWN with the store's error otherwise. It takes no lock
 * and writes nothing.
 */
public class LatchkeyHealthIndicator extends AbstractHealthIndicator {
    /** The name the probe reads; nothing ever locks it. */
    static final String PROBE = "latchkey/health-probe";

    private final LockClient client;

    /**
     * A health indicator that probes the store through {@code client}.
     *
     * @param client the application's client
     */
    public LatchkeyHealthIndicator(LockClient client) {
        super("Latchkey health check failed");
        this.client = client;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        long start = System.nanoTime();
        Optional<?> unused = client.inspect(PROBE);
        builder.up()
                .withDetail("backend", client.backend())
                .withDetail(
                        "roundTrip", Duration.ofNanos(System.nanoTime() - start).toString())
                .withDetail("held", client.held().size());
    }
}

package io.latchkey.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The meters against a real redis-server that this test pauses: failed renewals, the loss, an acquire error. */
@Timeout(120)
class RedisMetricsTest {
    private static RunningServer server;

    @BeforeAll
    static void start() {
        server = RedisServers.owned();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static double counted(SimpleMeterRegistry registry, String meter, String... tags) {
        return registry.find(meter).tags(tags).counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    @Test
    @DisplayName("a paused server: renewals fail and are counted, the grant is lost, a new acquire is an error")
    void outageIsMeasured() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        String uri =
                "redis://" + server.endpoint().host() + ":" + server.endpoint().port() + "?timeout=200ms";
        try (LockClient client = Latchkey.connect(uri)) {
            LatchkeyMetrics.builder(client).lockNameTag(10).build().bindTo(registry);
            LockOptions options = LockOptions.builder()
                    .lease(Duration.ofMillis(1500))
                    .renewInterval(Duration.ofMillis(200))
                    .build();
            client.lock("metrics-ok", options).tryAcquire().orElseThrow().release();
            assertThat(registry.get("latchkey.acquire")
                            .tags("backend", "redis", "outcome", "acquired", "lock", "metrics-ok")
                            .timer()
                            .count())
                    .isEqualTo(1);

            LockHandle h = client.lock("metrics-outage", options).tryAcquire().orElseThrow();
            server.requireFaultInjection().pause();
            try {
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> counted(registry, "latchkey.renewals", "result", "failed") >= 1);
                await().atMost(Duration.ofSeconds(20)).until(() -> !h.isValid());
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> counted(registry, "latchkey.losses", "lock", "metrics-outage") == 1);
                assertThat(registry.find("latchkey.losses").counters())
                        .extracting(m -> m.getId().getTag("reason"))
                        .allMatch(r -> r.equals("expired") || r.equals("renewal_failed"));
                assertThat(registry.get("latchkey.held").gauge().value()).isZero();

                assertThatThrownBy(() -> client.lock("metrics-down", options).tryAcquire())
                        .isInstanceOf(BackendUnavailableException.class);
                assertThat(registry.get("latchkey.acquire")
                                .tags("outcome", "error", "lock", "metrics-down")
                                .timer()
                                .count())
                        .isEqualTo(1);
            } finally {
                server.requireFaultInjection().resume();
            }
            assertThat(registry.getMeters())
                    .extracting(Meter::getId)
                    .allMatch(id -> "redis".equals(id.getTag("backend")));
        }
    }
}

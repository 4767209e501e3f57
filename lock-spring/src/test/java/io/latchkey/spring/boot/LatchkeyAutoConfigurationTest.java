package io.latchkey.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.micrometer.LatchkeyMetrics;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.spring.LatchkeyLockRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.integration.support.locks.PassThruLockRegistry;

/** The Boot auto-configuration against a real redis-server: beans, properties, health, metrics, a real application. */
class LatchkeyAutoConfigurationTest {
    private static final String PASSWORD = "s3cret-pw-7";
    private static RunningServer server;
    private static String uri;

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LatchkeyAutoConfiguration.class));

    @BeforeAll
    static void start() {
        server = RedisServers.single();
        uri = server.endpoint().uri().orElseThrow();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    @DisplayName("without latchkey.uri nothing is configured")
    void nothingWithoutAUri() {
        runner.run(context -> assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(LockClient.class)
                .doesNotHaveBean(LockRegistry.class));
    }

    @Test
    @DisplayName("latchkey.uri gives a LockClient, a LockRegistry with the latchkey.registry options, and a health"
            + " indicator that is UP; the client closes with the context")
    void clientRegistryAndHealth() {
        AtomicInteger runs = new AtomicInteger();
        LockClient[] client = new LockClient[1];
        runner.withPropertyValues(
                        "latchkey.uri=" + uri, "latchkey.registry.prefix=orders/", "latchkey.registry.ttl=20s")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockClient.class);
                    client[0] = context.getBean(LockClient.class);
                    LockRegistry<?> registry = context.getBean(LockRegistry.class);
                    assertThat(registry)
                            .isInstanceOf(LatchkeyLockRegistry.class)
                            .hasToString(
                                    "LatchkeyLockRegistry[" + client[0].backend() + ", prefix orders/, ttl PT20S]");
                    registry.executeLocked("o-1", () -> {
                        assertThat(client[0].inspect("orders/o-1")).isPresent();
                        runs.incrementAndGet();
                    });
                    Health health =
                            context.getBean(LatchkeyHealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails()).containsEntry("backend", client[0].backend());
                });
        assertThat(runs).hasValue(1);
        assertThatThrownBy(() -> client[0].lock("after-close").tryAcquire())
                .as("closed with the context")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("an application's own LockRegistry or LockClient wins")
    void ownBeansWin() {
        runner.withPropertyValues("latchkey.uri=" + uri)
                .withBean(LockRegistry.class, PassThruLockRegistry::new)
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(LockRegistry.class)
                        .getBean(LockRegistry.class)
                        .isInstanceOf(PassThruLockRegistry.class));
    }

    @Test
    @DisplayName("a store that cannot be reached at startup fails the context, naming the backend but no password")
    void unreachableStoreFailsStartupWithoutThePassword() {
        String dead = "redis://:" + PASSWORD + "@127.0.0.1:1?connectTimeout=500ms";
        failsWithoutThePassword(runner.withPropertyValues("latchkey.uri=" + dead));
        failsWithoutThePassword(runner.withPropertyValues(
                "latchkey.uri=redis://127.0.0.1:1?connectTimeout=500ms", "latchkey.settings.password=" + PASSWORD));
        failsWithoutThePassword(runner.withPropertyValues(
                "latchkey.uri=redis://127.0.0.1:1?connectTimeout=500ms&password=" + PASSWORD));
    }

    private static void failsWithoutThePassword(ApplicationContextRunner failing) {
        failing.run(context -> {
            assertThat(context).hasFailed();
            StringBuilder messages = new StringBuilder();
            for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                messages.append(t).append('\n');
            }
            assertThat(messages.toString()).contains("127.0.0.1:1").doesNotContain(PASSWORD);
        });
    }

    @Test
    @DisplayName("a store that goes away is DOWN with its error, and UP again when it is back")
    void healthFollowsTheStore() {
        RunningServer own = RedisServers.owned();
        try {
            runner.withPropertyValues("latchkey.uri=" + own.endpoint().uri().orElseThrow())
                    .run(context -> {
                        LatchkeyHealthIndicator health = context.getBean(LatchkeyHealthIndicator.class);
                        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                        own.requireFaultInjection().stop();
                        Health down = health.health();
                        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(down.getDetails()).containsKey("error");
                        own.requireFaultInjection().restart();
                        await().atMost(Duration.ofSeconds(20))
                                .until(() -> health.health().getStatus().equals(Status.UP));
                        assertThat(context.getBean(LatchkeyProperties.class).toString())
                                .doesNotContain("127.0.0.1");
                    });
        } finally {
            own.close();
        }
    }

    @Test
    @DisplayName("with lock-micrometer and Boot's metrics, Latchkey's meters are in the application's MeterRegistry")
    void metricsAreBound() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        LatchkeyAutoConfiguration.class,
                        MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class))
                .withPropertyValues("latchkey.uri=" + uri)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LatchkeyMetrics.class);
                    @SuppressWarnings("unchecked")
                    LockRegistry<DistributedLock> registry = context.getBean(LockRegistry.class);
                    registry.executeLocked("metered", () -> {});
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get("latchkey.acquire")
                                    .tag("outcome", "acquired")
                                    .timer()
                                    .count())
                            .isEqualTo(1);
                    assertThat(meters.get("latchkey.hold").timer().count()).isEqualTo(1);
                });
    }

    @Test
    @DisplayName("latchkey.metrics.enabled=false leaves the meters out")
    void metricsCanBeTurnedOff() {
        runner.withPropertyValues("latchkey.uri=" + uri, "latchkey.metrics.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LatchkeyMetrics.class));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    @Test
    @DisplayName("a real Boot application finds the auto-configuration through its imports file")
    void realApplication() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties("latchkey.uri=" + uri, "latchkey.registry.prefix=app/")
                .run()) {
            @SuppressWarnings("unchecked")
            LockRegistry<DistributedLock> registry = context.getBean(LockRegistry.class);
            assertThat(registry).isInstanceOf(LatchkeyLockRegistry.class);
            String result = registry.executeLocked("job", () -> "ran");
            assertThat(result).isEqualTo("ran");
            assertThat(context.getBean(MeterRegistry.class)
                            .get("latchkey.hold")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(context.getBeansOfType(LatchkeyHealthIndicator.class)).hasSize(1);
        }
    }
}

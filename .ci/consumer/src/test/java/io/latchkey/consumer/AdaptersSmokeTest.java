package io.latchkey.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.micrometer.LatchkeyMetrics;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.shedlock.LatchkeyLockProvider;
import io.latchkey.spring.LatchkeyLockRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import org.junit.jupiter.api.Test;

class AdaptersSmokeTest {
    @Test
    void registryShedLockAndMetricsOnRedis() throws Exception {
        try (RunningServer server = RedisServers.single();
                LockClient client = Latchkey.connect(server.endpoint().uri().orElseThrow());
                LatchkeyMetrics metrics = LatchkeyMetrics.of(client);
                LatchkeyLockProvider shedLock = new LatchkeyLockProvider(client, "shedlock/")) {
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            metrics.bindTo(meters);

            LatchkeyLockRegistry registry = new LatchkeyLockRegistry(client);
            assertEquals("ran", registry.executeLocked("registry-smoke", () -> "ran"));

            AtomicInteger runs = new AtomicInteger();
            LockingTaskExecutor executor = new DefaultLockingTaskExecutor(shedLock);
            executor.executeWithLock(
                    (Runnable) runs::incrementAndGet,
                    new LockConfiguration(
                            java.time.Instant.now(), "shedlock-smoke", Duration.ofMinutes(1), Duration.ZERO));
            assertEquals(1, runs.get());

            assertTrue(meters.get("latchkey.acquire").timer().count() >= 2, "acquisitions were measured");
        }
    }
}

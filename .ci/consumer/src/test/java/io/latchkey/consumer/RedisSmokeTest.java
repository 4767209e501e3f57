package io.latchkey.consumer;

import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import org.junit.jupiter.api.Test;

class RedisSmokeTest {
    @Test
    void acquireAndReleaseOnRedis() {
        try (RunningServer server = RedisServers.single()) {
            Smoke.acquireAndRelease(server.endpoint().uri().orElseThrow(), "redis");
        }
    }
}

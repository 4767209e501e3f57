package io.latchkey.spring;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Spring Integration's LockRegistry expectations on a real redis-server (a lease store). */
class RedisLockRegistryTest extends LockRegistryContract {
    private static RunningServer server;
    private static LockClient client;
    private static LockClient other;

    @BeforeAll
    static void start() {
        server = RedisServers.single();
        String uri = server.endpoint().uri().orElseThrow();
        client = Latchkey.connect(uri);
        other = Latchkey.connect(uri);
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
            other.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    LockClient client() {
        return client;
    }

    @Override
    LockClient otherClient() {
        return other;
    }
}

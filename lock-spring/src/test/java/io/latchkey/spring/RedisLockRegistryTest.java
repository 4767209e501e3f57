package io.latchkey.spring;

import io.latchkey.LockClient;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.tck.server.StoreClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Spring Integration's LockRegistry expectations on a real redis-server (a lease store). */
class RedisLockRegistryTest extends LockRegistryContract {
    private static StoreClients store;

    @BeforeAll
    static void start() {
        RunningServer server = RedisServers.single();
        store = StoreClients.of(server, server.endpoint().uri().orElseThrow(), 2);
    }

    @AfterAll
    static void stop() {
        if (store != null) {
            store.close();
        }
    }

    @Override
    LockClient client() {
        return store.client(0);
    }

    @Override
    LockClient otherClient() {
        return store.client(1);
    }
}

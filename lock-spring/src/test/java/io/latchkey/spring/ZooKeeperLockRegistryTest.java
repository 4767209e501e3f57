package io.latchkey.spring;

import io.latchkey.LockClient;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import io.latchkey.tck.server.StoreClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Spring Integration's LockRegistry expectations on ZooKeeper (session-bound: a grant's ttl is Latchkey's lease, which
 * the core ends by deleting the node when it runs out unrenewed).
 */
class ZooKeeperLockRegistryTest extends LockRegistryContract {
    private static StoreClients store;

    @BeforeAll
    static void start() {
        ZooKeeperServer server = ZooKeeperServers.single();
        store = StoreClients.of(server, server.uri(), 2);
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

package io.latchkey.spring;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Spring Integration's LockRegistry expectations on ZooKeeper (session-bound: a grant's ttl is Latchkey's lease, which
 * the core ends by deleting the node when it runs out unrenewed).
 */
class ZooKeeperLockRegistryTest extends LockRegistryContract {
    private static ZooKeeperServer server;
    private static LockClient client;
    private static LockClient other;

    @BeforeAll
    static void start() {
        server = ZooKeeperServers.single();
        client = Latchkey.connect(server.uri());
        other = Latchkey.connect(server.uri());
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

package io.latchkey.shedlock;

import io.latchkey.LockClient;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import io.latchkey.tck.server.StoreClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's provider tests on ZooKeeper (session-bound: the provider itself ends a lock at lockAtMostFor). */
class ZooKeeperShedLockTest extends ShedLockContract {
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
    LockClient observer() {
        return store.client(1);
    }
}

package io.latchkey.shedlock;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's provider tests on ZooKeeper (session-bound: the provider itself ends a lock at lockAtMostFor). */
class ZooKeeperShedLockTest extends ShedLockContract {
    private static ZooKeeperServer server;
    private static LockClient client;
    private static LockClient observer;

    @BeforeAll
    static void start() {
        server = ZooKeeperServers.single();
        String uri = server.uri();
        client = Latchkey.connect(uri);
        observer = Latchkey.connect(uri);
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
            observer.close();
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
    LockClient observer() {
        return observer;
    }
}

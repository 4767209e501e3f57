package io.latchkey.zookeeper;

import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The TCK against one ZooKeeper server (embedded TestingServer unless LATCHKEY_ZOOKEEPER_CONNECT is set). */
class ZooKeeperTckTest extends ZooKeeperTckBase {
    private static ZooKeeperServer server;

    @BeforeAll
    static void startServer() {
        server = ZooKeeperServers.single();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected ZooKeeperServer server() {
        return server;
    }
}

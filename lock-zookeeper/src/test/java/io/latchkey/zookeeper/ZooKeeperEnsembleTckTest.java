package io.latchkey.zookeeper;

import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The TCK against a three-server ZooKeeper ensemble (embedded TestingCluster unless LATCHKEY_ZOOKEEPER_CONNECT is set). */
class ZooKeeperEnsembleTckTest extends ZooKeeperTckBase {
    private static ZooKeeperServer server;

    @BeforeAll
    static void startServer() {
        server = ZooKeeperServers.ensemble();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    /** The recipe groups run on ZooKeeperTckTest: an ensemble changes the server side, not what recipes use. */
    @Override
    protected io.latchkey.tck.TckSettings settings() {
        return super.settings().toBuilder().coreRulesOnly().build();
    }

    @Override
    protected ZooKeeperServer server() {
        return server;
    }
}

package io.latchkey.consumer;

import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import org.junit.jupiter.api.Test;

class ZooKeeperSmokeTest {
    @Test
    void acquireAndReleaseOnZooKeeper() {
        try (ZooKeeperServer server = ZooKeeperServers.single()) {
            Smoke.acquireAndRelease(server.uri(), "zookeeper");
        }
    }
}

package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.zookeeper.fixtures.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Lock parents are container nodes: once a lock's queue is empty, ZooKeeper deletes its parent. Its own
 * embedded server checks containers every 200 ms instead of every minute (a JVM-wide server property, so it
 * is set only while this server starts).
 */
class ContainerParentTest {
    private static final String CHECK_INTERVAL = "znode.container.checkIntervalMs";
    private static EmbeddedZooKeeper zk;

    @BeforeAll
    static void start() throws Exception {
        String before = System.getProperty(CHECK_INTERVAL);
        System.setProperty(CHECK_INTERVAL, "200");
        try {
            zk = EmbeddedZooKeeper.startSingle();
        } finally {
            if (before == null) {
                System.clearProperty(CHECK_INTERVAL);
            } else {
                System.setProperty(CHECK_INTERVAL, before);
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (zk != null) {
            zk.close();
        }
    }

    @Test
    @DisplayName("an empty lock parent disappears, a held one stays, and the lock works again afterwards")
    void emptyParentsDisappear() throws Exception {
        ZooKeeperLockBackend backend = Clients.backend("zookeeper://" + zk.connectString(), "10s", "3s");
        try (LockClient client = Latchkey.client(backend)) {
            String held = "container/held/" + UUID.randomUUID();
            String freed = "container/freed/" + UUID.randomUUID();
            var h = client.lock(held).tryAcquire().orElseThrow();
            client.lock(freed).tryAcquire().orElseThrow().release();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> backend.curator().checkExists().forPath(backend.pathOf(freed)) == null);
            assertThat(backend.curator().checkExists().forPath(backend.pathOf(held)))
                    .isNotNull();
            client.lock(freed).tryAcquire().orElseThrow().release();
            h.release();
        }
    }
}

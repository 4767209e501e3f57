package io.latchkey.jmh.zookeeper;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * One ZooKeeper server and the three clients the ZooKeeper benchmarks compare: Latchkey's client, a Curator
 * client for the peer ({@code InterProcessMutex}), and a raw ZooKeeper handle for the baseline. The server is
 * an embedded ZooKeeper (this module's test fixture) unless {@code LATCHKEY_ZOOKEEPER_CONNECT} names one.
 */
final class ZooKeeperBench implements AutoCloseable {
    final ZooKeeperServer server;
    final LockClient latchkey;
    final CuratorFramework curator;
    final ZooKeeper raw;

    ZooKeeperBench() throws Exception {
        server = ZooKeeperServers.single();
        latchkey = Latchkey.connect(URI.create(server.uri()), Map.of("sessionTimeout", "30s"));
        curator = CuratorFrameworkFactory.builder()
                .connectString(server.connectString())
                .sessionTimeoutMs(30_000)
                .retryPolicy(new BoundedExponentialBackoffRetry(50, 1000, 3))
                .ensembleTracker(false)
                .build();
        curator.start();
        curator.blockUntilConnected(10, TimeUnit.SECONDS);
        CountDownLatch connected = new CountDownLatch(1);
        raw = new ZooKeeper(server.connectString(), 30_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("raw ZooKeeper client did not connect to " + server);
        }
    }

    @Override
    public void close() throws Exception {
        latchkey.close();
        curator.close();
        raw.close();
        server.close();
    }
}

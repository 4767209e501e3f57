package io.latchkey.cli;

import io.latchkey.servers.EmbeddedZooKeeperServer;
import io.latchkey.servers.ServerStartException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A throw-away standalone ZooKeeper server inside this JVM for {@code bench}: lock-servers'
 * {@link EmbeddedZooKeeperServer} (the server classes come with the ZooKeeper jar lock-zookeeper already
 * bundles, so nothing needs installing), with transaction-log fsync off ({@code forceSync=no}) like the relaxed
 * durability of the other local servers, in a temporary directory that bench's clean-up deletes. It shares the
 * JVM's cores with the clients. Called on the main thread.
 */
final class InProcessZooKeeper {
    private InProcessZooKeeper() {}

    /** Starts the server and returns its {@code zookeeper://} URI. */
    static String start(BenchCleanup cleanup) throws Exception {
        Path dir = LocalServers.temporaryDirectory(null, "latchkey-bench-zk-", cleanup);
        EmbeddedZooKeeperServer server;
        try {
            server = EmbeddedZooKeeperServer.start(dir, Duration.ofSeconds(2), Map.of("forceSync", "no"));
        } catch (ServerStartException e) {
            throw new LocalServers.NotStarted(e.getMessage(), e);
        }
        cleanup.add(server);
        return "zookeeper://" + server.connectString();
    }
}

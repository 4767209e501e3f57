package io.latchkey.zookeeper;

import java.net.URI;
import java.util.Map;

/** Backends for fault tests, built from a URI as an application would. */
final class Clients {
    private Clients() {}

    static ZooKeeperLockBackend backend(String uri, String sessionTimeout, String connectionTimeout) {
        return (ZooKeeperLockBackend) new ZooKeeperBackendProvider()
                .create(
                        URI.create(uri),
                        Map.of("sessionTimeout", sessionTimeout, "connectionTimeout", connectionTimeout));
    }

    static long sessionId(ZooKeeperLockBackend backend) throws Exception {
        return backend.curator().getZookeeperClient().getZooKeeper().getSessionId();
    }
}

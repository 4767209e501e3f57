package io.latchkey.zookeeper;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;

/**
 * Builds a {@link ZooKeeperLockBackend} on a {@link CuratorFramework} the application already has. The
 * backend never closes that client; the application closes it after the backend. Only {@code basePath}
 * applies (the client's own session and connection timeouts are used).
 *
 * <pre>{@code
 * LockClient locks = Latchkey.client(ZooKeeperLockBackend.builder(curator).basePath("/myapp/locks").build());
 * }</pre>
 */
public final class ZooKeeperLockBackendBuilder {
    private final CuratorFramework curator;
    private String basePath = ZooKeeperSettings.defaults().basePath();

    ZooKeeperLockBackendBuilder(CuratorFramework curator) {
        this.curator = Objects.requireNonNull(curator, "curator must not be null");
    }

    /**
     * The base node (default {@code /latchkey}); see {@link ZooKeeperSettings.Builder#basePath(String)}.
     *
     * @param path an absolute ZooKeeper path
     * @return this builder
     */
    public ZooKeeperLockBackendBuilder basePath(String path) {
        this.basePath = ZooKeeperSettings.builder().basePath(path).build().basePath();
        return this;
    }

    /**
     * The namespace (default none); its locks live under {@code <basePath>/ns/<namespace>}, see
     * {@link ZooKeeperSettings.Builder#namespace(String)}. Set it after {@link #basePath(String)}.
     *
     * @param namespace the namespace, empty for none
     * @return this builder
     */
    public ZooKeeperLockBackendBuilder namespace(String namespace) {
        this.basePath = ZooKeeperSettings.builder()
                .basePath(basePath)
                .namespace(namespace)
                .build()
                .lockRoot();
        return this;
    }

    /**
     * The backend on the application's client.
     *
     * @return the backend
     */
    public ZooKeeperLockBackend build() {
        // until the first connection tells the negotiated session timeout, assume the shortest plausible one
        long fallback = TimeUnit.MILLISECONDS.toNanos(
                Math.max(1, curator.getZookeeperClient().getConnectionTimeoutMs()));
        String connect = curator.getZookeeperClient().getCurrentConnectionString();
        String ns = curator.getNamespace();
        String description = "zookeeper://" + connect + (ns == null || ns.isEmpty() ? "" : "/" + ns) + basePath
                + " (application's Curator client)";
        return new ZooKeeperLockBackend(new ZooKeeperConnection(curator, false, fallback), description, basePath);
    }

    @Override
    public String toString() {
        return "ZooKeeperLockBackendBuilder[basePath=" + basePath + "]";
    }
}

package io.latchkey.zookeeper;

import io.latchkey.spi.LockBackend;
import io.latchkey.tck.FaultProxies;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.TckFaults;
import io.latchkey.tck.TckSettings;
import io.latchkey.zookeeper.fixtures.EmbeddedZooKeeper;
import io.latchkey.zookeeper.fixtures.SessionKiller;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * The TCK on a ZooKeeper server or ensemble. Every backend is built from a URI, as an application would,
 * with a 30 s session (the default, at least the default 30 s lease). Fault hooks: outage stops every server (sessions survive, as the data does) and
 * restarts them when closed; killSession expires a backend's session on the server; restartServer
 * restarts every server.
 */
abstract class ZooKeeperTckBase extends LockBackendTck {

    protected abstract ZooKeeperServer server();

    @Override
    protected LockBackend newBackend() {
        return new ZooKeeperBackendProvider()
                .create(URI.create(server().uri()), Map.of("sessionTimeout", "30s", "connectionTimeout", "3s"));
    }

    @Override
    protected java.util.Optional<LockBackend> newBackendInNamespace(String namespace) {
        return java.util.Optional.of(new ZooKeeperBackendProvider()
                .create(
                        URI.create(server().uri()),
                        Map.of("sessionTimeout", "30s", "connectionTimeout", "3s", "namespace", namespace)));
    }

    /**
     * A 2 s short lease: the core reports an unrenewed lease lost lease/20 before it ends (50 ms at 1 s), which a
     * loaded two-core machine sometimes misses by scheduling delay alone; 2 s gives it 100 ms.
     */
    @Override
    protected TckSettings settings() {
        return TckSettings.defaults().toBuilder()
                .shortLease(Duration.ofSeconds(2))
                .build();
    }

    /**
     * A child JVM's session times out after 4 s, so that a SIGKILL'd child's grants free within the recipe rules'
     * bounds (its lease is its session); in-process clients keep 30 s, which the outage rules need.
     */
    @Override
    protected java.util.Optional<io.latchkey.tck.ProcessBackend> processBackend() {
        return java.util.Optional.of(new io.latchkey.tck.ProcessBackend(
                server().uri(), Map.of("sessionTimeout", "4s", "connectionTimeout", "3s")));
    }

    /**
     * Every server through a fault proxy, with a child JVM's 4 s session: behind a black hole the server expires
     * the session (and so frees its locks) within the network rules' bounds.
     */
    @Override
    protected java.util.Optional<LockBackend> newBackendThrough(FaultProxies proxies) {
        String connect = server().connectString();
        int chroot = connect.indexOf('/'); // a chroot path follows the last host:port
        String servers = java.util.Arrays.stream(
                                (chroot < 0 ? connect : connect.substring(0, chroot)).split(","))
                        .map(proxies::route)
                        .collect(java.util.stream.Collectors.joining(","))
                + (chroot < 0 ? "" : connect.substring(chroot));
        return java.util.Optional.of(new ZooKeeperBackendProvider()
                .create(URI.create("zookeeper://" + servers), Map.of("sessionTimeout", "4s", "connectionTimeout", "3s")));
    }

    @Override
    protected TckFaults faults() {
        return new TckFaults() {
            @Override
            public AutoCloseable outage() {
                EmbeddedZooKeeper zk = server().control();
                zk.stop();
                return zk::restart;
            }

            @Override
            public void killSession(LockBackend backend) {
                SessionKiller.kill((ZooKeeperLockBackend) backend, server().connectString());
            }

            @Override
            public void restartServer() {
                server().control().restart();
            }
        };
    }
}

package io.latchkey.redis;

import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.FaultProxies;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.TckFaults;
import java.util.List;

/** The whole TCK on Redlock over N real redis-server processes; an outage pauses every node. */
abstract class RedlockTckBase extends LockBackendTck {

    /** The nodes, started once per test class by the subclass. */
    abstract List<RunningServer> servers();

    @Override
    protected LockBackend newBackend() {
        // The exclusion rule runs 16 threads against every node on a 2-core CI machine that also hosts the
        // nodes: give each node 500 ms instead of the production default of 200 ms, still far below the lease.
        return RedisLockBackend.connect(RedisServers.redlockUri(servers()) + "?timeout=500ms");
    }

    @Override
    protected java.util.Optional<LockBackend> newBackendInNamespace(String namespace) {
        return java.util.Optional.of(RedisLockBackend.connect(
                java.net.URI.create(RedisServers.redlockUri(servers())),
                java.util.Map.of("timeout", "500ms", "namespace", namespace)));
    }

    /** Every node through its own fault proxy, so that a rule can cut a minority of them. */
    @Override
    protected java.util.Optional<LockBackend> newBackendThrough(FaultProxies proxies) {
        String nodes = servers().stream()
                .map(s -> proxies.route(s.endpoint().hostAndPort()))
                .collect(java.util.stream.Collectors.joining(","));
        return java.util.Optional.of(RedisLockBackend.connect("redlock://" + nodes + "?timeout=500ms"));
    }

    @Override
    protected java.util.Optional<io.latchkey.tck.ProcessBackend> processBackend() {
        return java.util.Optional.of(
                io.latchkey.tck.ProcessBackend.of(RedisServers.redlockUri(servers()) + "?timeout=500ms"));
    }

    @Override
    protected TckFaults faults() {
        return new TckFaults() {
            @Override
            public AutoCloseable outage() {
                servers().forEach(s -> s.requireFaultInjection().pause());
                return () -> servers().forEach(s -> s.requireFaultInjection().resume());
            }
        };
    }
}

package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Fairness;
import io.latchkey.redis.fixtures.RedisTopologyServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.Grant;
import java.time.Duration;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.ProcessBackend;
import io.latchkey.tck.TckFaults;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The whole TCK on a Redis Cluster of three masters ({@code redis-cluster://n1,n2,n3}), real processes with the
 * 16384 slots split between them, so that the TCK's names land on every node. The outage freezes every node.
 */
class RedisClusterTckTest extends LockBackendTck {
    private static RedisTopologyServers.Cluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisTopologyServers.cluster();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected LockBackend newBackend() {
        return RedisLockBackend.connect(cluster.uri());
    }

    @Test
    @DisplayName("a cluster renews each lock on its own: its names lie in different slots, so no script takes many")
    void clusterDoesNotBatchRenewals() {
        try (LockBackend b = newBackend()) {
            assertThat(b.renewalBatchSize()).isEqualTo(1);
        }
    }

    @Override
    protected Optional<LockBackend> newBackendInNamespace(String namespace) {
        return Optional.of(
                RedisLockBackend.connect(java.net.URI.create(cluster.uri()), java.util.Map.of("namespace", namespace)));
    }

    /** A cut master takes its slots with it: names are sharded, not replicated, so no minority cut. */
    @Override
    protected io.latchkey.tck.TckSettings settings() {
        return io.latchkey.tck.TckSettings.defaults().toBuilder().minorityCut(false).build();
    }

    /**
     * Every master through a fault proxy: the URI names the proxies as seeds, and the addressMap setting sends the
     * client to them when the slot map announces the nodes' own addresses.
     */
    @Override
    protected Optional<LockBackend> newBackendThrough(io.latchkey.tck.FaultProxies proxies) {
        java.util.List<String> seeds = new java.util.ArrayList<>();
        java.util.List<String> map = new java.util.ArrayList<>();
        for (RunningServer node : cluster.nodes()) {
            String proxied = proxies.route(node.endpoint().hostAndPort());
            seeds.add(proxied);
            map.add(node.endpoint().hostAndPort() + "%3D" + proxied);
        }
        return Optional.of(RedisLockBackend.connect(
                "redis-cluster://" + String.join(",", seeds) + "?addressMap=" + String.join(",", map)));
    }

    @Override
    protected Optional<ProcessBackend> processBackend() {
        return Optional.of(ProcessBackend.of(cluster.uri()));
    }

    @Test
    @DisplayName("names spread over every master: each node serves grants, so the TCK above ran on all three")
    void namesSpreadOverEveryMaster() {
        try (LockBackend backend = newBackend()) {
            for (int i = 0; i < 30; i++) {
                Grant g = (Grant) backend.tryAcquire(
                        new AcquireRequest("spread/" + i, "spread-owner", Duration.ofSeconds(10), Fairness.NONE));
                assertThat(backend.release(g)).isTrue();
            }
        }
        for (RunningServer node : cluster.nodes()) {
            try (Jedis j = new Jedis(node.endpoint().host(), node.endpoint().port())) {
                // fence counters are never deleted: a node that granted a name keeps its counter
                assertThat(j.dbSize()).as("keys on %s", node.endpoint()).isPositive();
            }
        }
    }

    @Override
    protected TckFaults faults() {
        return new TckFaults() {
            @Override
            public AutoCloseable outage() {
                cluster.nodes().forEach(s -> s.requireFaultInjection().pause());
                return () -> cluster.nodes().forEach(s -> s.requireFaultInjection().resume());
            }
        };
    }
}

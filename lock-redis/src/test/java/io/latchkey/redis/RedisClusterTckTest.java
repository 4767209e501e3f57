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

    /**
     * The process, clock and network fault rules run on the single node and on Redlock: this topology runs the same
     * scripts through another client, and CI's 40 minutes do not fit every topology.
     */
    @Override
    protected io.latchkey.tck.TckSettings settings() {
        return io.latchkey.tck.TckSettings.defaults().toBuilder().faultRules(false).build();
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

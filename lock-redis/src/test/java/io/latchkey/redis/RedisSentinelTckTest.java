package io.latchkey.redis;

import static org.awaitility.Awaitility.await;

import io.latchkey.redis.fixtures.RedisTopologyServers;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.ProcessBackend;
import io.latchkey.tck.TckFaults;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The whole TCK through Redis Sentinel ({@code redis-sentinel://s1,s2,s3/mymaster}): a master, two replicas and
 * three Sentinels, all real processes. The outage freezes every process (Sentinels too, so that the outage is
 * not turned into a fail-over); the fail-over itself is RedisSentinelFaultTest's.
 */
class RedisSentinelTckTest extends LockBackendTck {
    private static RedisTopologyServers.SentinelGroup group;

    @BeforeAll
    static void startGroup() {
        group = RedisTopologyServers.sentinelGroup();
    }

    @AfterAll
    static void stopGroup() {
        try {
            // every client the rules opened is closed: none may leave a Sentinel listener thread behind (Jedis
            // starts them racily; RedisTopologies closes twice). Checked before the Sentinels go away, since a
            // leaked listener then logs a WARN every 5 s into whatever test runs next.
            await("no Sentinel listener thread of a closed client left")
                    .atMost(Duration.ofSeconds(15))
                    .until(() -> listenerThreads().isEmpty());
        } finally {
            if (group != null) {
                group.close();
            }
        }
    }

    private static List<String> listenerThreads() {
        List<String> ports = group.sentinels().stream()
                .map(s -> ":" + s.endpoint().port() + "]")
                .toList();
        return Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(n -> n.contains("SentinelListener") && ports.stream().anyMatch(n::endsWith))
                .toList();
    }

    @Test
    @DisplayName("clients closed right after they connect leave no Sentinel listener thread behind")
    void quicklyClosedClientsLeaveNoListenerThreads() {
        for (int i = 0; i < 20; i++) {
            RedisLockBackend.connect(group.uri()).close();
        }
        await("every listener of the closed clients stopped")
                .atMost(Duration.ofSeconds(15))
                .until(() -> listenerThreads().isEmpty());
    }

    @Override
    protected LockBackend newBackend() {
        return RedisLockBackend.connect(group.uri());
    }

    @Override
    protected Optional<LockBackend> newBackendInNamespace(String namespace) {
        return Optional.of(
                RedisLockBackend.connect(java.net.URI.create(group.uri()), java.util.Map.of("namespace", namespace)));
    }

    /**
     * The Sentinels and the master play different roles, so the minority-cut rule does not apply (the fail-over
     * itself is RedisSentinelFaultTest's).
     */
    @Override
    protected io.latchkey.tck.TckSettings settings() {
        return io.latchkey.tck.TckSettings.defaults().toBuilder().minorityCut(false).build();
    }

    /**
     * Every Sentinel and the master through a fault proxy: the URI names the Sentinels' proxies, and the
     * addressMap setting sends the client to the master's proxy when the Sentinels announce the master's own
     * address. The replicas are never connected to by this client.
     */
    @Override
    protected Optional<LockBackend> newBackendThrough(io.latchkey.tck.FaultProxies proxies) {
        String sentinels = group.sentinels().stream()
                .map(s -> proxies.route(s.endpoint().hostAndPort()))
                .collect(java.util.stream.Collectors.joining(","));
        String master = group.master().endpoint().hostAndPort();
        return Optional.of(RedisLockBackend.connect("redis-sentinel://" + sentinels + "/"
                + RedisTopologyServers.MASTER_NAME + "?addressMap=" + master + "%3D" + proxies.route(master)));
    }

    @Override
    protected Optional<ProcessBackend> processBackend() {
        return Optional.of(ProcessBackend.of(group.uri()));
    }

    @Override
    protected TckFaults faults() {
        return new TckFaults() {
            @Override
            public AutoCloseable outage() {
                group.all().forEach(s -> s.requireFaultInjection().pause());
                return () -> group.all().forEach(s -> s.requireFaultInjection().resume());
            }
        };
    }
}

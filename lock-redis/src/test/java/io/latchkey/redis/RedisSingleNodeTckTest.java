package io.latchkey.redis;

import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.ServerControl;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.ProcessBackend;
import java.util.Optional;
import io.latchkey.tck.FaultProxies;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.TckFaults;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole TCK on one real redis-server; its outage is a SIGSTOP of the server. The root README shows this class
 * as the example of running the TCK (from {@code class} to the end, checked by ReadmeTckExampleTest).
 */
class RedisSingleNodeTckTest extends LockBackendTck {
    private static RunningServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServers.single();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected LockBackend newBackend() {
        return RedisLockBackend.connect(RedisServers.uri(server));
    }

    @Override
    protected Optional<LockBackend> newBackendInNamespace(String namespace) {
        return Optional.of(RedisLockBackend.connect(
                java.net.URI.create(RedisServers.uri(server)), java.util.Map.of("namespace", namespace)));
    }

    @Override
    protected Optional<LockBackend> newBackendThrough(FaultProxies proxies) {
        var endpoint = server.endpoint();
        return Optional.of(RedisLockBackend.connect(
                "redis://127.0.0.1:" + proxies.route(endpoint.host(), endpoint.port())));
    }

    @Override
    protected Optional<ProcessBackend> processBackend() {
        return Optional.of(ProcessBackend.of(RedisServers.uri(server)));
    }

    @Override
    protected TckFaults faults() {
        return new TckFaults() {
            @Override
            public AutoCloseable outage() {
                ServerControl control = server.requireFaultInjection();
                control.pause();
                return control::resume;
            }

            @Override
            public void restartServer() {
                server.requireFaultInjection().restart();
            }
        };
    }
}

package io.latchkey.redis;

import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.ServerControl;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.TckFaults;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The whole TCK on one real redis-server; its outage is a SIGSTOP of the server. */
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
    protected java.util.Optional<io.latchkey.tck.ProcessBackend> processBackend() {
        return java.util.Optional.of(io.latchkey.tck.ProcessBackend.of(RedisServers.uri(server)));
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

package io.latchkey.redis;

import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.ServerControl;
import io.latchkey.servers.TestCertificates;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.TckFaults;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole TCK over {@code rediss://} on one real TLS-only redis-server, trusting the test CA through the
 * {@code tlsCa} setting (not the JVM's trust store); its outage is a SIGSTOP of the server.
 */
class RedisTlsTckTest extends LockBackendTck {
    private static TestCertificates certs;
    private static RunningServer server;

    @BeforeAll
    static void startServer() {
        certs = TestCertificates.create();
        server = RedisServers.tls(certs, false);
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
        if (certs != null) {
            certs.close();
        }
    }

    @Override
    protected LockBackend newBackend() {
        return RedisLockBackend.connect(
                URI.create(RedisServers.uri(server)),
                Map.of("tlsCa", certs.caCertificate().toString()));
    }

    /** The recipe groups run on RedisSingleNodeTckTest: TLS changes the transport only. */
    @Override
    protected io.latchkey.tck.TckSettings settings() {
        return io.latchkey.tck.TckSettings.defaults().toBuilder()
                .recipeRules(false)
                .faultRules(false)
                .primitiveRules(false)
                .build();
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

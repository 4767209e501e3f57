package io.latchkey.redis;

import io.latchkey.spi.PemTls;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.ServerControl;
import io.latchkey.servers.TestCertificates;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.TckFaults;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * The TCK's core groups over {@code rediss://} on one real TLS-only redis-server, trusting the test CA through the
 * {@code tlsCa} setting (not the JVM's trust store); its outage is a SIGSTOP of the server.
 *
 * <p>Least privilege: every backend connects as the ACL user of lock-redis/README.md's "Least privilege" section,
 * with exactly its rules ({@link RedisServers#lockUserRules}): keys under this test's own {@code keyPrefix} only, no
 * channels, only the commands listed. After the run the server's ACL LOG must be empty: no command, script call or
 * key was denied, not even one whose failure the backend would survive (a BLPOP, which would turn waits into
 * polling).
 */
class RedisTlsTckTest extends LockBackendTck {
    /** Not the default "latchkey:": the ACL key pattern is this prefix, which shows the limit is the setting's. */
    static final String KEY_PREFIX = "tck-tls:";

    private static final String PASSWORD = "lock-User-Pw-7q2";
    private static TestCertificates certs;
    private static RunningServer server;

    @BeforeAll
    static void startServer() {
        certs = TestCertificates.create();
        server = RedisServers.tls(
                certs,
                false,
                RedisServers.userArguments(
                        RedisServers.LOCK_USER, PASSWORD, RedisServers.lockUserRules(KEY_PREFIX, Set.of())));
    }

    /** After every test: the ACL LOG must be empty (see the class comment), then the server stops. */
    @AfterAll
    static void checkDenialsAndStopServer() {
        List<String> denials = new ArrayList<>();
        try {
            if (server != null) {
                denials.addAll(aclDenials());
            }
        } finally {
            if (server != null) {
                server.close();
            }
            if (certs != null) {
                certs.close();
            }
        }
        assertThat(denials)
                .as("ACL LOG of the server the least-privilege user ran the TCK on")
                .isEmpty();
    }

    /**
     * The server's ACL LOG, as the default user. CLIENT SETINFO, which Jedis sends at connect and whose refusal it
     * ignores, is left out: Redis 7.0 does not know it, and on 7.2 and later a user without {@code +client|setinfo}
     * only makes it a log entry.
     */
    private static List<String> aclDenials() {
        try (Jedis admin = new Jedis(
                new HostAndPort(server.endpoint().host(), server.endpoint().port()),
                DefaultJedisClientConfig.builder()
                        .ssl(true)
                        .sslSocketFactory(PemTls.context(certs.caCertificate(), null, null).getSocketFactory())
                        .sslParameters(PemTls.hostVerifyingParameters())
                        .build())) {
            return admin.aclLog().stream()
                    .filter(e -> !e.getObject().equalsIgnoreCase("client|setinfo"))
                    .map(e -> e.getUsername() + ": " + e.getReason() + " " + e.getObject() + " (" + e.getContext()
                            + ", " + e.getCount() + " times)")
                    .toList();
        }
    }


    @Override
    protected LockBackend newBackend() {
        return connect(Map.of());
    }

    /** Namespaces within the least-privileged user's key pattern: <keyPrefix><namespace>:... */
    @Override
    protected java.util.Optional<LockBackend> newBackendInNamespace(String namespace) {
        return java.util.Optional.of(connect(Map.of("namespace", namespace)));
    }

    private static LockBackend connect(Map<String, String> more) {
        Map<String, String> settings = new java.util.HashMap<>(more);
        settings.put("tlsCa", certs.caCertificate().toString());
        settings.put("keyPrefix", KEY_PREFIX);
        return RedisLockBackend.connect(
                URI.create("rediss://" + RedisServers.LOCK_USER + ":" + PASSWORD + "@"
                        + server.endpoint().hostAndPort()),
                settings);
    }

    /** The recipe groups run on RedisSingleNodeTckTest: TLS changes the transport only. */
    @Override
    protected io.latchkey.tck.TckSettings settings() {
        return io.latchkey.tck.TckSettings.defaults().toBuilder()
                .coreRulesOnly()
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

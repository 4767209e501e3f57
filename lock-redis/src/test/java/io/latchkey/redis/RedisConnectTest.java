package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Capability;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;

/** Connecting by URI (ServiceLoader) and by the application's own pool; passwords never leak (issue item 1). */
class RedisConnectTest {
    private static final String PASSWORD = "pw-Zq81-never-shown";
    private static RunningServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServers.owned("--requirepass", PASSWORD);
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private static String hostPort() {
        return server.endpoint().hostAndPort();
    }

    @Test
    void uriWithPasswordConnectsThroughTheServiceLoaderAndHidesThePassword() {
        try (LockClient client = Latchkey.connect("redis://:" + PASSWORD + "@" + hostPort() + "/2?keyPrefix=app:")) {
            assertThat(client.capabilities())
                    .contains(Capability.NATIVE_WAIT, Capability.LISTING)
                    .doesNotContain(Capability.SURVIVES_SERVER_RESTART, Capability.FAIR);
            assertThat(client.backend()).doesNotContain(PASSWORD).contains("***");
            assertThat(client.toString()).doesNotContain(PASSWORD);
            try (LockHandle h = client.lock("connect/a").tryAcquire().orElseThrow()) {
                assertThat(client.list("connect/")).extracting(i -> i.name()).containsExactly("connect/a");
                assertThat(h.fencingToken()).isPositive();
            }
        }
    }

    @Test
    void aWrongPasswordFailsAtConnectWithoutShowingIt() {
        String wrong = "wrong-Pw-77";
        assertThatThrownBy(
                        () -> Latchkey.connect("redis://user1:" + wrong + "@" + hostPort(), Map.of("timeout", "500ms"))
                                .close())
                .isInstanceOf(BackendUnavailableException.class)
                .satisfies(e -> {
                    for (Throwable t = e; t != null; t = t.getCause()) {
                        assertThat(String.valueOf(t.getMessage()))
                                .doesNotContain(wrong)
                                .doesNotContain(PASSWORD);
                    }
                })
                .hasMessageStartingWith("authentication failed at redis://" + hostPort() + ": WRONGPASS");
    }

    @Test
    void aPasswordChangedAfterConnectFailsTheOperationWithTheSameLine() {
        try (LockClient client = Latchkey.connect("redis://:" + PASSWORD + "@" + hostPort() + "?poolSize=1");
                Jedis admin = new Jedis(
                        HostAndPort.from(hostPort()),
                        DefaultJedisClientConfig.builder()
                                .autoNegotiateProtocol(false)
                                .password(PASSWORD)
                                .build())) {
            client.lock("connect/changed").tryAcquire().orElseThrow().close();
            try {
                admin.configSet("requirepass", "changed-Pw-31");
                admin.clientKill(new redis.clients.jedis.params.ClientKillParams()
                        .type(redis.clients.jedis.args.ClientType.NORMAL)
                        .skipMe(redis.clients.jedis.params.ClientKillParams.SkipMe.YES));
                assertThatThrownBy(() -> client.lock("connect/changed").tryAcquire())
                        .isInstanceOf(BackendUnavailableException.class)
                        .hasMessageContaining("authentication failed at redis://" + hostPort() + ": WRONGPASS")
                        .satisfies(e -> {
                            for (Throwable t = e; t != null; t = t.getCause()) {
                                assertThat(String.valueOf(t.getMessage()))
                                        .doesNotContain(PASSWORD)
                                        .doesNotContain("changed-Pw-31");
                            }
                        });
            } finally {
                admin.auth("changed-Pw-31");
                admin.configSet("requirepass", PASSWORD);
            }
        }
    }

    @Test
    void theBackendsConnectionsSpeakResp2WithoutNegotiating() {
        try (LockClient client =
                        Latchkey.connect("redis://:" + PASSWORD + "@" + hostPort() + "?clientName=resp-probe");
                Jedis admin = new Jedis(
                        HostAndPort.from(hostPort()),
                        DefaultJedisClientConfig.builder()
                                .autoNegotiateProtocol(false)
                                .password(PASSWORD)
                                .build())) {
            admin.configResetStat();
            client.lock("resp/a").tryAcquire().orElseThrow().close();
            List<String> mine = admin.clientList()
                    .lines()
                    .filter(l -> l.contains(" name=resp-probe "))
                    .toList();
            assertThat(mine).isNotEmpty().allSatisfy(l -> assertThat(l).contains(" resp=2"));
            // no HELLO: the protocol is stated (RESP2, the default of every connection), not negotiated
            assertThat(admin.info("commandstats"))
                    .doesNotContain("cmdstat_hello")
                    .contains("cmdstat_evalsha");
        }
    }

    @Test
    void connectionsKeptBesideThePoolAreReplacedAfterAKillAndClosedWithTheBackend() throws Exception {
        try (Jedis admin = admin()) {
            try (LockClient client = Latchkey.connect("redis://:" + PASSWORD + "@" + hostPort() + "?clientName=kept-probe")) {
                // four threads in a loop: each gives its connection back beside the pool, so several are kept there
                java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(4);
                try {
                    List<java.util.concurrent.Future<?>> loops = new java.util.ArrayList<>();
                    for (int t = 0; t < 4; t++) {
                        String name = "kept/" + t;
                        loops.add(threads.submit(() -> {
                            for (int i = 0; i < 200; i++) {
                                client.lock(name).tryAcquire().orElseThrow().close();
                            }
                            return null;
                        }));
                    }
                    for (java.util.concurrent.Future<?> loop : loops) {
                        loop.get(30, java.util.concurrent.TimeUnit.SECONDS);
                    }
                } finally {
                    threads.shutdownNow();
                }
                assertThat(connectionsNamed(admin, "kept-probe")).isGreaterThan(1);
                admin.clientKill(new redis.clients.jedis.params.ClientKillParams()
                        .type(redis.clients.jedis.args.ClientType.NORMAL)
                        .skipMe(redis.clients.jedis.params.ClientKillParams.SkipMe.YES));
                // the first kept connection fails as stale: every kept one is dropped with the pool's idle ones, so
                // the one retry finds a fresh connection, not another dead one
                for (int i = 0; i < 4; i++) {
                    client.lock("kept/after-kill").tryAcquire().orElseThrow().close();
                }
            }
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(connectionsNamed(admin, "kept-probe"))
                            .as("connections the closed backend left open")
                            .isZero());
        }
    }

    private static Jedis admin() {
        return new Jedis(
                HostAndPort.from(hostPort()),
                DefaultJedisClientConfig.builder()
                        .autoNegotiateProtocol(false)
                        .password(PASSWORD)
                        .build());
    }

    private static long connectionsNamed(Jedis admin, String name) {
        return admin.clientList().lines().filter(l -> l.contains(" name=" + name + " ")).count();
    }

    @Test
    void anApplicationPoolIsUsedAndNotClosed() {
        try (JedisPool pool = new JedisPool(
                HostAndPort.from(hostPort()),
                // RESP2 without negotiation, as the backend's own pools (else Jedis warns about RESP3 negotiation)
                redis.clients.jedis.DefaultJedisClientConfig.builder()
                        .autoNegotiateProtocol(false)
                        .password(PASSWORD)
                        .build())) {
            RedisLockBackend backend = RedisLockBackend.builder(pool)
                    .description("redis://:" + PASSWORD + "@cache")
                    .build();
            try (LockClient client = Latchkey.client(backend)) {
                assertThat(client.backend()).doesNotContain(PASSWORD);
                client.lock("pool/a").tryAcquire().orElseThrow().close();
            }
            assertThat(pool.isClosed()).isFalse();
            try (var jedis = pool.getResource()) {
                assertThat(jedis.ping()).isEqualTo("PONG");
            }
        }
    }
}

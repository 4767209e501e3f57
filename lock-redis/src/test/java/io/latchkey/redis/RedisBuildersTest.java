package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * Issue 12, item 3: the builders on the application's own clients take what users write: {@code List.of(...)}
 * or any collection (copied at once), {@code JedisPool} and Jedis 8's {@code RedisClient} / any
 * {@code UnifiedJedis}, mixed; a null element is an IllegalArgumentException naming its index.
 */
@Timeout(60)
@SuppressWarnings("deprecation") // JedisPool: deprecated in Jedis 8, still accepted
class RedisBuildersTest {
    private static final JedisClientConfig RESP2 =
            DefaultJedisClientConfig.builder().autoNegotiateProtocol(false).build();
    private static List<RunningServer> servers;

    @BeforeAll
    static void start() {
        servers = RedisServers.several(3);
    }

    @AfterAll
    static void stop() {
        if (servers != null) {
            servers.forEach(RunningServer::close);
        }
    }

    private static HostAndPort hp(int i) {
        return HostAndPort.from(servers.get(i).endpoint().hostAndPort());
    }

    private static JedisPool pool(int i) {
        return new JedisPool(hp(i), RESP2);
    }

    private static RedisClient client(int i) {
        return RedisClient.builder().hostAndPort(hp(i)).clientConfig(RESP2).build();
    }

    /** A UnifiedJedis that is not a RedisClient: used through its command API. */
    private static UnifiedJedis unified(int i) {
        return new UnifiedJedis(new PooledConnectionProvider(hp(i), RESP2), 1, Duration.ofSeconds(2));
    }

    private static void lockUnlock(LockClient locks, String name) {
        try (LockHandle h = locks.lock(name).tryAcquire().orElseThrow()) {
            assertThat(h.fencingToken()).isPositive();
            assertThat(locks.list(name)).extracting(i -> i.name()).containsExactly(name);
            assertThat(locks.lock(name).tryAcquire())
                    .as("held: a second acquire is refused")
                    .isEmpty();
        }
        assertThat(locks.inspect(name)).isEmpty();
    }

    @Test
    void redlockBuilderTakesListOf() {
        try (JedisPool a = pool(0);
                JedisPool b = pool(1);
                JedisPool c = pool(2)) {
            try (LockClient locks = Latchkey.client(RedisLockBackend.redlockBuilder(List.of(a, b, c))
                    .settings(RedisSettings.builder()
                            .timeout(Duration.ofSeconds(1))
                            .build())
                    .build())) {
                lockUnlock(locks, "builders/list-of");
            }
            assertThat(a.isClosed()).as("application pools stay open").isFalse();
        }
    }

    @Test
    void redlockBuilderTakesAnyCollectionAndCopiesIt() {
        try (JedisPool a = pool(0);
                JedisPool b = pool(1);
                JedisPool c = pool(2)) {
            List<JedisPool> mutable = new ArrayList<>(List.of(a, b, c));
            RedisLockBackend.Builder builder = RedisLockBackend.redlockBuilder(mutable)
                    .settings(RedisSettings.builder()
                            .timeout(Duration.ofSeconds(1))
                            .build());
            mutable.clear(); // the builder copied the collection
            try (LockClient locks = Latchkey.client(builder.build())) {
                lockUnlock(locks, "builders/copied");
            }
            for (var collection : List.of(new LinkedHashSet<>(List.of(a, b, c)), new ArrayDeque<>(List.of(a, b, c)))) {
                RedisLockBackend backend =
                        RedisLockBackend.redlockBuilder(collection).build();
                assertThat(backend.nodeCount()).isEqualTo(3);
                backend.close();
            }
        }
    }

    @Test
    void aNullElementIsRejectedNamingItsIndex() {
        try (JedisPool a = pool(0);
                JedisPool c = pool(2)) {
            assertThatThrownBy(() -> RedisLockBackend.redlockBuilder(Arrays.asList(a, null, c)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("index 1")
                    .hasMessageContaining("null");
            assertThatThrownBy(() -> RedisLockBackend.redlockBuilder(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at least 3");
            assertThatThrownBy(() -> RedisLockBackend.redlockBuilder(List.of(a, c)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at least 3")
                    .hasMessageContaining("got 2");
            assertThatThrownBy(() -> RedisLockBackend.redlockBuilder(List.of(a, c, a)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("index 2")
                    .hasMessageContaining("twice");
            assertThatThrownBy(() -> RedisLockBackend.redlockBuilder(List.of(a, c, "redis://h:1")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("index 2")
                    .hasMessageContaining("JedisPool or a UnifiedJedis");
            assertThatThrownBy(() -> RedisLockBackend.builder((JedisPool) null))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> RedisLockBackend.builder((UnifiedJedis) null))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aRedisClientServesASingleNodeWithWakeUpAndIsNotClosed() throws Exception {
        try (RedisClient app = client(0)) {
            assertSingleNodeWorks(app, "builders/redis-client");
            assertThat(app.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void aPlainUnifiedJedisServesASingleNodeWithWakeUpAndIsNotClosed() throws Exception {
        try (UnifiedJedis app = unified(0)) {
            assertSingleNodeWorks(app, "builders/unified");
            assertThat(app.ping()).isEqualTo("PONG");
        }
    }

    /** Lock, list, and a waiter woken by the release (BLPOP through the client), well before its wait ends. */
    private static void assertSingleNodeWorks(UnifiedJedis app, String name) throws Exception {
        try (LockClient holder = Latchkey.client(RedisLockBackend.builder(app).build());
                LockClient waiter =
                        Latchkey.client(RedisLockBackend.builder(app).build())) {
            lockUnlock(holder, name);
            LockHandle held = holder.lock(name).tryAcquire().orElseThrow();
            CompletableFuture<Optional<LockHandle>> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return waiter.lock(name).tryAcquire(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> holder.inspect(name).isPresent() && !waiting.isDone());
            long released = System.nanoTime();
            held.release();
            Optional<LockHandle> got = waiting.get(15, TimeUnit.SECONDS);
            assertThat(got).isPresent();
            assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(10));
            got.get().release();
        }
    }

    @Test
    void redlockOnRedisClientsAndMixedClients() {
        try (RedisClient a = client(0);
                RedisClient b = client(1);
                RedisClient c = client(2);
                JedisPool p = pool(2);
                UnifiedJedis u = unified(1)) {
            RedisSettings settings =
                    RedisSettings.builder().timeout(Duration.ofSeconds(1)).build();
            try (LockClient locks = Latchkey.client(RedisLockBackend.redlockBuilder(List.of(a, b, c))
                    .settings(settings)
                    .build())) {
                lockUnlock(locks, "builders/redlock-clients");
            }
            try (LockClient locks = Latchkey.client(RedisLockBackend.redlockBuilder(List.of(a, u, p))
                    .settings(settings)
                    .build())) {
                lockUnlock(locks, "builders/redlock-mixed");
            }
            assertThat(a.ping()).isEqualTo("PONG");
        }
    }
}

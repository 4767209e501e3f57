package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * Redlock hand-offs, two ways they went slow in the contended benchmark (which fell to a twentieth of its rate in about
 * one run in three):
 * - a node whose fencing counter lagged the quorum's kept the released grant's key until its lease ended (its counter
 *   was not raised, so the release's token check refused it), and every later attempt then needed both other nodes;
 * - a waiter blocks on one node (the first), and a release pushes a wake element to a node's list only where a waiter
 *   flagged the name as waited on; a waiter whose failed attempt was granted that node had not flagged it (for locks
 *   and for read-write locks alike).
 */
@Timeout(60)
class RedlockHandOffTest {
    private static List<RunningServer> servers;

    @BeforeAll
    static void startServers() {
        servers = RedisServers.several(3);
    }

    @AfterAll
    static void stopServers() {
        if (servers != null) {
            servers.forEach(RunningServer::close);
        }
    }

    @Test
    @DisplayName("a waiter whose failed attempt held the node it blocks on is woken by the release, not by its backoff")
    void aWaiterGrantedTheNodeItBlocksOnIsWokenByTheRelease() throws Exception {
        String name = "wake-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        try (LockClient holderClient = Latchkey.connect(RedisServers.redlockUri(servers));
                LockClient waiterClient = Latchkey.connect(RedisServers.redlockUri(servers));
                Jedis first = jedis(servers.get(0))) {
            LockHandle held = holderClient
                    .lock(name, LockOptions.builder().lease(Duration.ofSeconds(30)).build())
                    .tryAcquire()
                    .orElseThrow();
            // the holder's grant stands on the second and third nodes only, as after a race it won there: the first
            // node, the one waiters block on, is free, so the waiter's attempt is granted there and given back
            assertThat(first.del(new RedisKeys("latchkey:").of(name).lock())).isEqualTo(1);
            assertWokenByTheRelease(first, held, options -> waiterClient.lock(name, options));
        }
    }

    @Test
    @DisplayName("read-write: a writer whose failed attempt held the node it blocks on is woken by the release, not by"
            + " its backoff")
    void aWriterGrantedTheNodeItBlocksOnIsWokenByTheRelease() throws Exception {
        String name = "rw-wake-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        try (LockClient holderClient = Latchkey.connect(RedisServers.redlockUri(servers));
                LockClient waiterClient = Latchkey.connect(RedisServers.redlockUri(servers));
                Jedis first = jedis(servers.get(0))) {
            LockHandle held = holderClient
                    .readWriteLock(name, LockOptions.builder().lease(Duration.ofSeconds(30)).build())
                    .writeLock()
                    .tryAcquire()
                    .orElseThrow();
            // as above: the write grant stands on the second and third nodes only
            assertThat(first.hdel(new RedisKeys("latchkey:").readWrite(name).state(), bytes("w"), bytes("wt"), bytes("we")))
                    .isEqualTo(3);
            assertWokenByTheRelease(
                    first, held, options -> waiterClient.readWriteLock(name, options).writeLock());
        }
    }

    /**
     * Starts a waiter on {@code lock} with a 30 s backoff, waits until it blocks on the first node, releases
     * {@code held}, and asserts the waiter gets the lock within 5 s: only the release's wake-up brings it in that soon.
     */
    private static void assertWokenByTheRelease(
            Jedis first, LockHandle held, java.util.function.Function<LockOptions, io.latchkey.DistributedLock> lock)
            throws Exception {
        LockOptions slowBackoff = LockOptions.builder()
                .retry(RetryStrategy.fixed(Duration.ofSeconds(30)))
                .build();
        CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return lock.apply(slowBackoff).acquire(Duration.ofSeconds(50));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> blockedClients(first) >= 1);
        held.release();
        try (LockHandle got = waiter.get(5, TimeUnit.SECONDS)) {
            assertThat(got.fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    @DisplayName("a release removes the grant from every node, also from one whose fencing counter lagged the quorum's")
    void aReleaseLeavesNoKeyOnANodeWhoseCounterLagged() throws Exception {
        String name = "lag-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        RedisKeys.NameKeys keys = new RedisKeys("latchkey:").of(name);
        try (LockClient client = Latchkey.connect(RedisServers.redlockUri(servers));
                Jedis first = jedis(servers.get(0));
                Jedis second = jedis(servers.get(1));
                Jedis third = jedis(servers.get(2))) {
            // the counters of the second and third nodes ran ahead of the first's, as grants there alone (the halves
            // of split attempts) leave them
            for (Jedis ahead : List.of(second, third)) {
                ahead.incrBy(keys.fence(), 5);
            }
            LockHandle h = client.lock(name).tryAcquire().orElseThrow();
            assertThat(h.fencingToken()).isEqualTo(6);
            assertThat(first.exists(keys.lock())).as("the first node granted too").isTrue();
            h.release();
            for (Jedis node : List.of(first, second, third)) {
                assertThat(node.exists(keys.lock())).as("the grant's key after the release").isFalse();
            }
            // and the next holder is not held up by a key the last one left behind
            try (LockHandle next = client.lock(name).tryAcquire().orElseThrow()) {
                assertThat(first.get(keys.lock())).as("the first node granted the next holder").isNotNull();
                assertThat(next.fencingToken()).isEqualTo(7);
            }
        }
    }

    private static Jedis jedis(RunningServer server) {
        return new Jedis(
                HostAndPort.from(server.endpoint().hostAndPort()),
                DefaultJedisClientConfig.builder().autoNegotiateProtocol(false).build());
    }

    private static long blockedClients(Jedis node) {
        return node.info("clients")
                .lines()
                .filter(l -> l.startsWith("blocked_clients:"))
                .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim()))
                .sum();
    }
}

package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.ServerControl;
import io.latchkey.tck.LostUpdateRegister;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

/**
 * Read-write locks over Redlock (3 real nodes) where the quorum matters: a node down, a node whose token counter is
 * ahead of the others, and too few nodes. The TCK's read-write group runs on the healthy Redlock tests.
 */
@Timeout(120)
class RedlockReadWriteTest {
    private static List<RunningServer> servers;
    private final List<LockClient> clients = new ArrayList<>();

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

    @AfterEach
    void healNodes() {
        clients.forEach(LockClient::close);
        for (RunningServer s : servers) {
            ServerControl c = s.requireFaultInjection();
            if (!c.isAlive()) {
                c.restart();
            }
        }
    }

    private LockClient newClient() {
        LockClient c = Latchkey.connect(RedisServers.redlockUri(servers));
        clients.add(c);
        return c;
    }

    private static String uniqueName(String what) {
        return "rw-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36) + "/" + what;
    }

    private static Jedis node(int i) {
        return new Jedis(
                servers.get(i).endpoint().host(), servers.get(i).endpoint().port());
    }

    /** The lock's state hash on node {@code i}, without the token counter. */
    private static Map<String, String> grantsOn(int i, String name) {
        byte[] state = new RedisKeys("latchkey:").readWrite(name).state();
        try (Jedis j = node(i)) {
            Map<String, String> fields = j.hgetAll(new String(state, StandardCharsets.UTF_8));
            fields.remove("fence");
            return fields;
        }
    }

    @Test
    @DisplayName("1 of 3 nodes killed: readers share, writers exclude readers and each other, no update is lost")
    void oneNodeKilled_readersShareAndWritersExclude() throws Exception {
        servers.get(1).requireFaultInjection().kill();
        String name = uniqueName("one-down");
        List<LockClient> three = List.of(newClient(), newClient(), newClient());
        LockOptions options = LockOptions.builder()
                .lease(Duration.ofSeconds(10))
                .retry(RetryStrategy.exponential(Duration.ofMillis(1), Duration.ofMillis(20)))
                .build();
        AtomicInteger readersInside = new AtomicInteger();
        AtomicInteger writersInside = new AtomicInteger();
        AtomicInteger mostReadersInside = new AtomicInteger();
        AtomicReference<String> violation = new AtomicReference<>();
        LostUpdateRegister register = new LostUpdateRegister();
        int threads = 6;
        int rounds = 30;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                DistributedReadWriteLock rw = three.get(t % 3).readWriteLock(name, options);
                boolean writer = t % 3 == 0;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int r = 0; r < rounds; r++) {
                        if (writer) {
                            LockHandle h = rw.writeLock().acquire(Duration.ofSeconds(30));
                            if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
                                violation.compareAndSet(null, "a writer got in beside another holder");
                            }
                            register.increment();
                            writersInside.decrementAndGet();
                            h.release();
                        } else {
                            LockHandle h = rw.readLock().acquire(Duration.ofSeconds(30));
                            mostReadersInside.accumulateAndGet(readersInside.incrementAndGet(), Math::max);
                            if (writersInside.get() != 0) {
                                violation.compareAndSet(null, "a reader got in while a writer held");
                            }
                            Thread.onSpinWait();
                            readersInside.decrementAndGet();
                            h.release();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(90, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(violation.get()).as("exclusion").isNull();
        assertThat(register.value()).as("writes counted").isEqualTo(2L * rounds);
    }

    @Test
    @DisplayName("a node whose token counter is ahead: the grant carries the quorum's maximum on every node that"
            + " granted, so renewal and release find it, and the next writer's token is higher")
    void laggingNodesTakeTheQuorumsToken() throws Exception {
        String name = uniqueName("fence-ahead");
        byte[] state = new RedisKeys("latchkey:").readWrite(name).state();
        try (Jedis j = node(0)) {
            j.hset(new String(state, StandardCharsets.UTF_8), "fence", "100");
        }
        LockClient client = newClient();
        DistributedReadWriteLock rw = client.readWriteLock(
                name, LockOptions.builder().lease(Duration.ofSeconds(10)).build());
        LockHandle read = rw.readLock().tryAcquire().orElseThrow();
        assertThat(read.fencingToken()).isEqualTo(101);
        for (int i = 0; i < 3; i++) {
            assertThat(grantsOn(i, name).values())
                    .as("the reader's token on node %d", i)
                    .containsExactly("101");
        }
        assertThat(read.renew()).as("renewed on a quorum").isTrue();
        assertThat(read.release()).isTrue();
        for (int i = 0; i < 3; i++) {
            assertThat(grantsOn(i, name)).as("node %d after the release", i).isEmpty();
        }
        LockHandle write = rw.writeLock().tryAcquire().orElseThrow();
        assertThat(write.fencingToken()).isGreaterThan(101);
        for (int i = 0; i < 3; i++) {
            assertThat(grantsOn(i, name)).as("the writer on node %d", i).containsEntry("wt", "" + write.fencingToken());
        }
        assertThat(write.release()).isTrue();
    }

    @Test
    @DisplayName("2 of 3 nodes killed: read and write acquisitions fail, and the survivor is left holding nothing")
    void twoNodesKilled_nothingIsLeftHeld() {
        LockClient client = newClient(); // connected while all nodes are up
        servers.get(0).requireFaultInjection().kill();
        servers.get(2).requireFaultInjection().kill();
        String name = uniqueName("two-down");
        DistributedReadWriteLock rw = client.readWriteLock(name);
        assertThatThrownBy(() -> rw.readLock().tryAcquire())
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining(name)
                .hasMessageContaining("2 of 3 nodes failed");
        assertThatThrownBy(() -> rw.writeLock().tryAcquire())
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("2 of 3 nodes failed");
        assertThat(client.held()).isEmpty();
        assertThat(grantsOn(1, name)).as("grants left on the survivor").isEmpty();
    }
}

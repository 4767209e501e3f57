package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.DistributedLock;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.LockTimeoutException;
import io.latchkey.RetryStrategy;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.ServerControl;
import io.latchkey.tck.LockHistory;
import io.latchkey.tck.LostUpdateRegister;
import io.latchkey.tck.OverlapDetector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

/** Redlock over 3 real nodes with nodes killed and frozen (issue item 6). */
@Timeout(120)
class RedlockFaultTest {
    private static final Duration NODE_TIMEOUT = RedisSettings.REDLOCK_TIMEOUT;
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
            c.resume();
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
        return "fault-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36) + "/" + what;
    }

    /**
     * Acquire and release are pipelined over pooled connections. A node restarted while its connections sat idle breaks
     * them; the round must send again on a fresh connection, so that the restarted node counts toward the quorum at
     * once instead of failing (and being asked through the executor) until its next call.
     */
    @Test
    @DisplayName("a node restarted under idle pooled connections still grants in the next pipelined round")
    void restartedNode_pipelinedRoundSendsAgainOnAFreshConnection() throws Exception {
        LockClient client = newClient();
        String name = uniqueName("restarted");
        DistributedLock lock = client.lock(name, LockOptions.builder().lease(Duration.ofSeconds(10)).build());
        lock.tryAcquire().orElseThrow().release(); // pooled connections to every node are open and idle now
        servers.get(1).requireFaultInjection().restart();
        LockHandle h = lock.tryAcquire().orElseThrow();
        try {
            byte[] key = new RedisKeys("latchkey:").of(name).lock();
            for (int i = 0; i < servers.size(); i++) {
                try (Jedis j = new Jedis(servers.get(i).endpoint().host(), servers.get(i).endpoint().port())) {
                    assertThat(j.exists(key))
                            .as("node %d holds the grant made just after node 1 restarted", i)
                            .isTrue();
                }
            }
        } finally {
            h.release();
        }
    }

    /**
     * Batched renewal on Redlock decides each grant on its own: a lock one node does not have (as if that node missed
     * its acquisition) cannot reach a quorum once another node dies, so it alone is lost when its validity ends;
     * the locks renewed with it in the same batches stay held. Were the batch judged as a whole, one such lock would
     * take all of them with it.
     */
    @Test
    @DisplayName("1 of 3 nodes killed: a lock without its quorum is lost alone, its batch's other locks are kept")
    void oneNodeKilled_aBatchLosesOnlyTheLockWithoutAQuorum() {
        LockClient client = newClient();
        LockOptions lease = LockOptions.builder()
                .lease(Duration.ofSeconds(2))
                .renewInterval(Duration.ofMillis(500))
                .build();
        String prefix = uniqueName("batch") + "/";
        List<io.latchkey.LockHandle> held = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            held.add(client.lock(prefix + i, lease).tryAcquire().orElseThrow());
        }
        io.latchkey.LockHandle missed = held.get(7);
        try (Jedis second = new Jedis(servers.get(1).endpoint().host(), servers.get(1).endpoint().port())) {
            second.del(new RedisKeys("latchkey:").of(missed.name()).lock()); // the second node never had it
        }
        servers.get(2).requireFaultInjection().kill();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(6))
                .until(() -> missed.lost().toCompletableFuture().isDone());
        assertThat(missed.lost().toCompletableFuture().join().reason()).isEqualTo(io.latchkey.LockLoss.Reason.RENEWAL_FAILED);
        // two more leases: every other lock was renewed by the two live nodes all along
        long until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(8))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    assertThat(held.stream().filter(h -> h != missed))
                            .allMatch(io.latchkey.LockHandle::isValid);
                    return System.nanoTime() - until >= 0;
                });
        assertThat(held.stream().filter(h -> h != missed)).noneMatch(h -> h.lost().toCompletableFuture().isDone());
    }

    @Test
    @DisplayName("1 of 3 nodes killed: locks are still granted and exclusion holds")
    void oneNodeKilled_locksAreGrantedAndExclusive() throws Exception {
        servers.get(1).requireFaultInjection().kill();
        String name = uniqueName("one-down");
        List<LockClient> three = List.of(newClient(), newClient(), newClient());
        OverlapDetector detector = new OverlapDetector();
        LostUpdateRegister register = new LostUpdateRegister();
        LockHistory history = new LockHistory();
        LockOptions options = LockOptions.builder()
                .lease(Duration.ofSeconds(10))
                .retry(RetryStrategy.exponential(Duration.ofMillis(1), Duration.ofMillis(20)))
                .build();
        int threads = 6;
        int rounds = 40;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                DistributedLock lock = three.get(t % 3).lock(name, options);
                String who = "thread-" + t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int r = 0; r < rounds; r++) {
                        LockHandle h = lock.acquire(Duration.ofSeconds(30));
                        LockHistory.Entry e = history.granted(h);
                        detector.enter(who);
                        register.increment();
                        detector.exit(who);
                        e.released();
                        h.release();
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
        assertThat(detector.overlaps())
                .as("overlaps; first: %s", detector.firstOverlap())
                .isZero();
        assertThat(register.value()).isEqualTo((long) threads * rounds);
        assertThat(history.violations()).isEmpty();
    }

    @Test
    @DisplayName("2 of 3 nodes killed: acquire fails and nothing is left held on the survivor")
    void twoNodesKilled_acquireFailsAndNothingIsHeld() {
        // connected while all nodes are up (with two down, connecting itself fails: RedisStoreErrorsTest)
        LockClient client = newClient();
        servers.get(0).requireFaultInjection().kill();
        servers.get(2).requireFaultInjection().kill();
        String name = uniqueName("two-down");
        DistributedLock lock = client.lock(
                name,
                LockOptions.builder()
                        .lease(Duration.ofSeconds(10))
                        .retry(RetryStrategy.fixed(Duration.ofMillis(50)))
                        .build());
        assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(500)))
                .isInstanceOfAny(LockTimeoutException.class, BackendUnavailableException.class)
                .hasMessageContaining(name);
        assertThatThrownBy(lock::tryAcquire)
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("2 of 3 nodes failed");
        assertThat(client.held()).isEmpty();
        RedisKeys.NameKeys keys = new RedisKeys("latchkey:").of(name);
        try (Jedis survivor = new Jedis(
                servers.get(1).endpoint().host(), servers.get(1).endpoint().port())) {
            assertThat(survivor.get(keys.lock()))
                    .as("lock key left on the surviving node")
                    .isNull();
            assertThat(survivor.get(keys.fence()))
                    .as("the survivor did grant (and then gave back)")
                    .isNotNull();
        }
    }

    @Test
    @DisplayName("a node frozen with SIGSTOP costs each operation at most the per-node timeout")
    void pausedNode_costsAtMostTheNodeTimeout() throws Exception {
        LockClient client = newClient();
        long bound = NODE_TIMEOUT.plusMillis(150).toNanos(); // timeout + scheduling slack on a shared machine
        for (int frozen : new int[] {0, 2}) {
            // a name per frozen node: when a node thaws it applies the requests that timed out meanwhile, and
            // the grants it makes then are orphans on a minority of nodes until their lease ends
            DistributedLock lock = client.lock(
                    uniqueName("paused-" + frozen),
                    LockOptions.builder().lease(Duration.ofSeconds(10)).build());
            lock.tryAcquire().orElseThrow().release(); // connections are open before the freeze
            ServerControl node = servers.get(frozen).requireFaultInjection();
            node.pause();
            try {
                for (int i = 0; i < 5; i++) {
                    long t0 = System.nanoTime();
                    LockHandle h = lock.tryAcquire().orElseThrow();
                    long acquired = System.nanoTime() - t0;
                    long t1 = System.nanoTime();
                    assertThat(h.release()).isTrue();
                    long released = System.nanoTime() - t1;
                    assertThat(acquired)
                            .as("acquire took %d ms with node %d frozen", acquired / 1_000_000, frozen)
                            .isLessThanOrEqualTo(bound);
                    assertThat(released)
                            .as("release took %d ms with node %d frozen", released / 1_000_000, frozen)
                            .isLessThanOrEqualTo(bound);
                }
            } finally {
                node.resume();
            }
        }
    }
}

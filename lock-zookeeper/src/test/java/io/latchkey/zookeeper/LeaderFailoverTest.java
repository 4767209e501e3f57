package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.BackendUnavailableException;
import io.latchkey.DistributedLock;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockTimeoutException;
import io.latchkey.tck.LockHistory;
import io.latchkey.tck.LostUpdateRegister;
import io.latchkey.tck.OverlapDetector;
import io.latchkey.zookeeper.fixtures.EmbeddedZooKeeper;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.test.InstanceSpec;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Killing the ensemble's leader while 8 clients contend on one name keeps exclusion and progress. */
class LeaderFailoverTest {
    private static ZooKeeperServer ensemble;

    @BeforeAll
    static void startEnsemble() {
        ensemble = ZooKeeperServers.ensemble();
    }

    @AfterAll
    static void stopEnsemble() {
        if (ensemble != null) {
            ensemble.close();
        }
    }

    @Test
    @DisplayName("8 clients contend on one name while the leader is killed: no overlap, no lost update, progress after")
    void killingTheLeaderKeepsExclusionAndProgress() throws Exception {
        EmbeddedZooKeeper zk = ensemble.control();
        String name = "failover/" + java.util.UUID.randomUUID();
        List<LockClient> clients = new ArrayList<>();
        OverlapDetector detector = new OverlapDetector();
        LostUpdateRegister register = new LostUpdateRegister();
        LockHistory history = new LockHistory();
        AtomicLong increments = new AtomicLong();
        AtomicInteger unavailable = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        InstanceSpec leader = null;
        try {
            for (int i = 0; i < 8; i++) {
                clients.add(Latchkey.client(Clients.backend(ensemble.uri(), "30s", "3s")));
            }
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                DistributedLock lock = clients.get(t).lock(name);
                String who = "client-" + t;
                futures.add(pool.submit(() -> {
                    start.await();
                    while (!stop.get()) {
                        LockHandle h;
                        try {
                            h = lock.acquire(Duration.ofSeconds(30));
                        } catch (BackendUnavailableException | LockTimeoutException e) {
                            unavailable.incrementAndGet(); // the election is under way: try again
                            continue;
                        }
                        LockHistory.Entry e = history.granted(h);
                        detector.enter(who);
                        register.increment();
                        increments.incrementAndGet();
                        detector.exit(who);
                        e.released();
                        try {
                            h.release();
                        } catch (BackendUnavailableException ex) {
                            unavailable.incrementAndGet(); // removed in the background once reconnected
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> increments.get() >= 200);

            leader = zk.leader();
            zk.kill(leader);
            long atKill = increments.get();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> increments.get() >= atKill + 200);
            stop.set(true);
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
            assertThat(zk.leader()).as("a new leader was elected").isNotEqualTo(leader);
        } finally {
            stop.set(true);
            pool.shutdownNow();
            for (LockClient c : clients) {
                c.close();
            }
            if (leader != null) {
                zk.restart(leader);
            }
        }
        assertThat(detector.overlaps())
                .as("overlaps; first: %s", detector.firstOverlap())
                .isZero();
        assertThat(register.value()).isEqualTo(increments.get());
        assertThat(history.violations()).isEmpty();
        assertThat(history.size()).isGreaterThanOrEqualTo(400);
    }
}

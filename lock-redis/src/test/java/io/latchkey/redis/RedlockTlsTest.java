package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.TestCertificates;
import io.latchkey.tck.LockHistory;
import io.latchkey.tck.OverlapDetector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Redlock over 3 real TLS-only redis-server processes that require client certificates: {@code tls=true},
 * {@code tlsCa}, {@code tlsCert} and {@code tlsKey} given as settings. Contending clients acquire and release
 * under an overlap detector, tokens grow, and nothing is left held.
 */
@Timeout(120)
class RedlockTlsTest {
    private static TestCertificates certs;
    private static List<RunningServer> servers;

    @BeforeAll
    static void startServers() {
        certs = TestCertificates.create();
        servers = RedisServers.severalTls(3, certs, true);
    }

    @AfterAll
    static void stopServers() {
        if (servers != null) {
            servers.forEach(RunningServer::close);
        }
        if (certs != null) {
            certs.close();
        }
    }

    private static LockClient newClient() {
        return Latchkey.connect(
                RedisServers.redlockUri(servers),
                Map.of(
                        "tls",
                        "true",
                        "tlsCa",
                        certs.caCertificate().toString(),
                        "tlsCert",
                        certs.clientCertificate().toString(),
                        "tlsKey",
                        certs.clientKey().toString(),
                        "timeout",
                        "500ms"));
    }

    @Test
    void contendingClientsOverMutualTlsNeverOverlapAndLeaveNothingHeld() throws Exception {
        String name = "redlock-tls/contended";
        List<LockClient> clients = List.of(newClient(), newClient(), newClient());
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            assertThat(clients.get(0).backend()).startsWith("redlock://").endsWith("(TLS)");
            OverlapDetector detector = new OverlapDetector();
            LockHistory history = new LockHistory();
            ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();
            LockOptions options = LockOptions.builder()
                    .lease(Duration.ofSeconds(10))
                    .retry(RetryStrategy.exponential(Duration.ofMillis(1), Duration.ofMillis(20)))
                    .build();
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                DistributedLock lock = clients.get(t % 3).lock(name, options);
                String who = "thread-" + t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int r = 0; r < 15; r++) {
                        try (LockHandle h = lock.acquire(Duration.ofSeconds(30))) {
                            LockHistory.Entry e = history.granted(h);
                            detector.enter(who);
                            tokens.add(h.fencingToken());
                            detector.exit(who);
                            e.released();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(90, TimeUnit.SECONDS);
            }
            assertThat(detector.overlaps()).as("%s", detector.firstOverlap()).isZero();
            assertThat(tokens).hasSize(6 * 15).doesNotHaveDuplicates();
            assertThat(history.violations()).isEmpty();
            assertThat(clients.get(0).inspect(name)).isEmpty();
        } finally {
            pool.shutdownNow();
            clients.forEach(LockClient::close);
        }
    }
}

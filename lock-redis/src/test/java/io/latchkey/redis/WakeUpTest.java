package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.redis.fixtures.RespProxy;
import io.latchkey.tck.server.RunningServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

/** Wake-up (issue item 3): one release wakes one waiter; a lost wake-up costs one backoff, not a lease. */
@Timeout(60)
class WakeUpTest {
    private static RunningServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServers.owned();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private static String uniqueName(String what) {
        return "wake-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36) + "/" + what;
    }

    private static long evalshas(RespProxy p) {
        return p.commandNames().stream().filter(c -> c.startsWith("EVAL")).count();
    }

    @Test
    @DisplayName("one release wakes exactly one of three waiting clients; the others stay blocked")
    void oneReleaseWakesOneWaiter() throws Exception {
        String name = uniqueName("one");
        List<RespProxy> proxies = new ArrayList<>();
        List<LockClient> clients = new ArrayList<>();
        try (LockClient holder = Latchkey.connect(RedisServers.uri(server))) {
            LockHandle held = holder.lock(name, LockOptions.builder().lease(Duration.ofSeconds(30)).build()).tryAcquire().orElseThrow();
            LockOptions slowPolling = LockOptions.builder().retry(RetryStrategy.fixed(Duration.ofSeconds(60))).build();
            List<CompletableFuture<LockHandle>> waiters = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                RespProxy p = RespProxy.start(server.endpoint().host(), server.endpoint().port());
                proxies.add(p);
                LockClient c = Latchkey.connect("redis://127.0.0.1:" + p.port());
                clients.add(c);
                waiters.add(c.lock(name, slowPolling).acquireAsync(Duration.ofSeconds(50)));
            }
            // every waiter tried once, was told busy, and now blocks on the wake list
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> proxies.stream().allMatch(
                    p -> evalshas(p) >= 1 && p.commandNames().contains("BLPOP")));
            proxies.forEach(RespProxy::resetCount);
            assertThat(held.release()).isTrue();
            CompletableFuture<Object> first = CompletableFuture.anyOf(waiters.toArray(CompletableFuture[]::new));
            LockHandle winner;
            try {
                winner = (LockHandle) first.get(5, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("no waiter acquired within 5 s of the release; commands per waiter since: "
                        + proxies.stream().map(RespProxy::commandNames).toList(), e);
            }
            // the others were not woken: during a second, none of them sends another acquire
            Awaitility.await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                    .until(() -> proxies.stream().mapToLong(WakeUpTest::evalshas).sum() == 1);
            assertThat(waiters.stream().filter(CompletableFuture::isDone).count()).isEqualTo(1);
            assertThat(winner.isValid()).isTrue();
            // the waiters still waiting, taken BEFORE the release: one of them may be granted at once after it
            CompletableFuture<?>[] rest = waiters.stream().filter(w -> !w.isDone()).toArray(CompletableFuture[]::new);
            proxies.forEach(RespProxy::resetCount);
            winner.release();
            // and the next release wakes the next one
            CompletableFuture<Object> second = CompletableFuture.anyOf(rest);
            try {
                ((LockHandle) second.get(5, TimeUnit.SECONDS)).release();
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("no remaining waiter acquired within 5 s of the winner's release; commands per"
                        + " client since: " + proxies.stream().map(RespProxy::commandNames).toList(), e);
            }
        } finally {
            clients.forEach(LockClient::close);
            proxies.forEach(RespProxy::close);
        }
    }

    @Test
    @DisplayName("a lost wake-up costs at most one backoff interval, never the holder's lease")
    void lostWakeUpCostsOneBackoff() throws Exception {
        String name = uniqueName("lost");
        try (LockClient holder = Latchkey.connect(RedisServers.uri(server));
             LockClient waiter = Latchkey.connect(RedisServers.uri(server))) {
            LockHandle unused = holder.lock(name, LockOptions.builder().lease(Duration.ofSeconds(30)).autoRenew(false).build())
                    .tryAcquire().orElseThrow(); // freed below behind the client's back
            CompletableFuture<LockHandle> got = waiter.lock(name, LockOptions.builder()
                    .retry(RetryStrategy.fixed(Duration.ofMillis(300))).build()).acquireAsync(Duration.ofSeconds(20));
            Awaitility.await().pollDelay(Duration.ofMillis(100)).until(() -> !got.isDone());
            long freed = System.nanoTime();
            try (Jedis j = new Jedis(server.endpoint().host(), server.endpoint().port())) {
                j.del(new RedisKeys("latchkey:").of(name).lock()); // freed without any wake-up
            }
            LockHandle h = got.get(5, TimeUnit.SECONDS);
            long took = System.nanoTime() - freed;
            assertThat(took).as("acquired %d ms after the silent release", took / 1_000_000)
                    .isLessThan(Duration.ofMillis(300 + 500).toNanos());
            h.release();
        }
    }
}

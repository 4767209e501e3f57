package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.redis.fixtures.RespProxy;
import io.latchkey.servers.RunningServer;
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

/**
 * Wake-up (issue item 3): one release wakes one waiter; a lost wake-up costs one backoff, not a lease.
 * Deterministic: no test waits for a quiet wall-clock window or sleeps. Each waits for what it can observe on a
 * proxy in front of a waiter (its acquire attempt, its BLPOPs), and "not woken" is shown by an ordering: a
 * woken waiter sends EVALSHA before its next BLPOP. Against a release that wakes every waiter the first test
 * fails on a loser's EVALSHA; against one that wakes none, on the 5 s bound for the winner.
 */
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

    private static long blpops(RespProxy p) {
        return p.commandNames().stream().filter(c -> c.equals("BLPOP")).count();
    }

    @Test
    @DisplayName("one release wakes exactly one of three waiting clients; the others stay blocked")
    void oneReleaseWakesOneWaiter() throws Exception {
        String name = uniqueName("one");
        List<RespProxy> proxies = new ArrayList<>();
        List<LockClient> clients = new ArrayList<>();
        try (LockClient holder = Latchkey.connect(RedisServers.uri(server))) {
            LockHandle held = holder.lock(
                            name,
                            LockOptions.builder().lease(Duration.ofSeconds(30)).build())
                    .tryAcquire()
                    .orElseThrow();
            LockOptions slowPolling = LockOptions.builder()
                    .retry(RetryStrategy.fixed(Duration.ofSeconds(60)))
                    .build();
            List<CompletableFuture<LockHandle>> waiters = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                RespProxy p = RespProxy.start(
                        server.endpoint().host(), server.endpoint().port());
                proxies.add(p);
                LockClient c = Latchkey.connect("redis://127.0.0.1:" + p.port());
                clients.add(c);
                waiters.add(c.lock(name, slowPolling).acquireAsync(Duration.ofSeconds(50)));
            }
            // every waiter tried once, was told busy, and now blocks on the wake list
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> proxies.stream()
                            .allMatch(p -> evalshas(p) >= 1 && p.commandNames().contains("BLPOP")));
            proxies.forEach(RespProxy::resetCount);
            assertThat(held.release()).isTrue();
            // the BLPOPs each waiter had sent when the release returned: a wake-up the release pushed reaches one
            // of these or, for a waiter between two BLPOPs, the next one
            long[] blpopsAtRelease =
                    proxies.stream().mapToLong(WakeUpTest::blpops).toArray();
            CompletableFuture<Object> first = CompletableFuture.anyOf(waiters.toArray(CompletableFuture[]::new));
            LockHandle winner;
            try {
                winner = (LockHandle) first.get(5, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError(
                        "no waiter acquired within 5 s of the release; commands per waiter since: "
                                + proxies.stream().map(RespProxy::commandNames).toList(),
                        e);
            }
            int won = waiters.indexOf(waiters.stream()
                    .filter(CompletableFuture::isDone)
                    .findFirst()
                    .orElseThrow());
            // The others were not woken. No quiet window is timed: a woken waiter tries to acquire (EVALSHA)
            // before it blocks again, so once each of the others has sent two more BLPOPs since the release,
            // any wake-up of theirs has shown as an EVALSHA on their proxy.
            List<Integer> others = new ArrayList<>();
            for (int i = 0; i < proxies.size(); i++) {
                if (i != won) {
                    others.add(i);
                }
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> others.stream().allMatch(i -> blpops(proxies.get(i)) >= blpopsAtRelease[i] + 2));
            for (int i : others) {
                assertThat(evalshas(proxies.get(i)))
                        .as(
                                "acquire attempts of waiter %d, not woken by the release; commands " + "since: %s",
                                i, proxies.get(i).commandNames())
                        .isZero();
            }
            assertThat(waiters.stream().filter(CompletableFuture::isDone).count())
                    .isEqualTo(1);
            assertThat(winner.isValid()).isTrue();
            // the waiters still waiting, taken BEFORE the release: one of them may be granted at once after it
            CompletableFuture<?>[] rest =
                    waiters.stream().filter(w -> !w.isDone()).toArray(CompletableFuture[]::new);
            proxies.forEach(RespProxy::resetCount);
            winner.release();
            // and the next release wakes the next one
            CompletableFuture<Object> second = CompletableFuture.anyOf(rest);
            try {
                ((LockHandle) second.get(5, TimeUnit.SECONDS)).release();
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError(
                        "no remaining waiter acquired within 5 s of the winner's release; commands per"
                                + " client since: "
                                + proxies.stream().map(RespProxy::commandNames).toList(),
                        e);
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
        try (RespProxy proxy = RespProxy.start(
                        server.endpoint().host(), server.endpoint().port());
                LockClient holder = Latchkey.connect(RedisServers.uri(server));
                LockClient waiter = Latchkey.connect("redis://127.0.0.1:" + proxy.port())) {
            LockHandle unused = holder.lock(
                            name,
                            LockOptions.builder()
                                    .lease(Duration.ofSeconds(30))
                                    .autoRenew(false)
                                    .build())
                    .tryAcquire()
                    .orElseThrow(); // freed below behind the client's back
            proxy.resetCount();
            CompletableFuture<LockHandle> got = waiter.lock(
                            name,
                            LockOptions.builder()
                                    .retry(RetryStrategy.fixed(Duration.ofMillis(300)))
                                    .build())
                    .acquireAsync(Duration.ofSeconds(20));
            // the waiter tried, was told busy and now blocks for a wake-up (what the freeing below must not send)
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> evalshas(proxy) >= 1 && blpops(proxy) >= 1);
            assertThat(got).isNotDone();
            long freed = System.nanoTime();
            try (Jedis j = new Jedis(server.endpoint().host(), server.endpoint().port())) {
                j.del(new RedisKeys("latchkey:").of(name).lock()); // freed without any wake-up
            }
            LockHandle h = got.get(5, TimeUnit.SECONDS);
            long took = System.nanoTime() - freed;
            assertThat(took)
                    .as("acquired %d ms after the silent release", took / 1_000_000)
                    .isLessThan(Duration.ofMillis(300 + 500).toNanos());
            h.release();
        }
    }
}

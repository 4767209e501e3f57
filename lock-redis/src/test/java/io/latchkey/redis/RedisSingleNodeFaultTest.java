package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Fairness;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.redis.fixtures.RespProxy;
import io.latchkey.servers.RunningServer;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
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

/** One real node under faults: restart, lost replies (a proxy that drops responses), script flush (issue item 6). */
@Timeout(120)
class RedisSingleNodeFaultTest {
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
        return "fault-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36) + "/" + what;
    }

    private static Jedis direct() {
        return new Jedis(server.endpoint().host(), server.endpoint().port());
    }

    private static String fence(String name) {
        try (Jedis j = direct()) {
            byte[] v = j.get(new RedisKeys("latchkey:").of(name).fence());
            return v == null ? null : new String(v, StandardCharsets.US_ASCII);
        }
    }

    private static String holder(String name) {
        try (Jedis j = direct()) {
            byte[] v = j.get(new RedisKeys("latchkey:").of(name).lock());
            return v == null ? null : new String(v, StandardCharsets.UTF_8);
        }
    }

    /** Opens the pooled connection (its handshake must not be what the proxy drops) and caches the scripts. */
    private static void warmUp(RedisLockBackend backend) {
        Grant g = (Grant) backend.tryAcquire(
                new AcquireRequest(uniqueName("warm-up"), "warm-up", Duration.ofSeconds(5), Fairness.NONE));
        assertThat(backend.release(g)).isTrue();
    }

    @Test
    @DisplayName("a restart (no persistence) while a lock is held: the holder reports the loss before validUntil()")
    void restartWhileHeld_holderReportsLossBeforeValidUntil() throws Exception {
        try (LockClient client = Latchkey.connect(RedisServers.uri(server))) {
            LockHandle h = client.lock(
                            uniqueName("restart"),
                            LockOptions.builder().lease(Duration.ofSeconds(3)).build())
                    .tryAcquire()
                    .orElseThrow();
            CompletableFuture<Instant[]> seen = new CompletableFuture<>();
            h.onLost(loss -> seen.complete(new Instant[] {Instant.now(), h.validUntil()}));
            server.requireFaultInjection().restart();
            LockLoss loss = h.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
            Instant[] at = seen.get(10, TimeUnit.SECONDS);
            assertThat(at[0])
                    .as("loss reported at %s, validUntil %s", at[0], at[1])
                    .isBefore(at[1]);
            assertThat(loss.reason()).isEqualTo(LockLoss.Reason.RENEWAL_FAILED);
            assertThat(h.isValid()).isFalse();
            // the restarted server serves the next client at once: stale pooled connections are replaced
            assertThat(client.lock(uniqueName("after-restart")).tryAcquire()).isPresent();
        }
    }

    @Test
    @DisplayName("a reply lost after the server applied the acquire: the retry with the same owner gets the same grant")
    void lostReply_retryRecognisesTheGrant() {
        String name = uniqueName("lost-reply");
        try (RespProxy proxy = RespProxy.start(
                        server.endpoint().host(), server.endpoint().port());
                RedisLockBackend backend = RedisLockBackend.connect(
                        URI.create("redis://127.0.0.1:" + proxy.port()), Map.of("timeout", "300ms"))) {
            AcquireRequest request =
                    new AcquireRequest(name, "owner-lost-reply", Duration.ofSeconds(20), Fairness.NONE);
            warmUp(backend);
            proxy.dropResponses(true);
            assertThatThrownBy(() -> backend.tryAcquire(request))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining(name);
            proxy.dropResponses(false);
            assertThat(holder(name)).as("the server applied the acquire").isEqualTo("owner-lost-reply");
            assertThat(fence(name)).isEqualTo("1");
            AcquireResult retry = backend.tryAcquire(request);
            assertThat(retry).isInstanceOf(Grant.class);
            assertThat(((Grant) retry).fencingToken())
                    .as("the retry made no second grant")
                    .isEqualTo(1);
            assertThat(fence(name)).isEqualTo("1");
            assertThat(backend.tryAcquire(
                            new AcquireRequest(name, "someone-else", Duration.ofSeconds(20), Fairness.NONE)))
                    .isNotInstanceOf(Grant.class);
            assertThat(backend.release((Grant) retry)).isTrue();
        }
    }

    @Test
    @DisplayName("a reply lost during LockClient.acquire: the core's retry recognises the grant, one token is used")
    void lostReply_clientAcquireSucceedsIdempotently() throws Exception {
        String name = uniqueName("lost-reply-client");
        try (RespProxy proxy = RespProxy.start(
                        server.endpoint().host(), server.endpoint().port());
                LockClient client =
                        Latchkey.connect(URI.create("redis://127.0.0.1:" + proxy.port()), Map.of("timeout", "300ms"))) {
            client.lock(uniqueName("warm-up")).tryAcquire().orElseThrow().release(); // scripts cached, connection open
            proxy.dropResponses(true);
            long before = proxy.commands();
            CompletableFuture<LockHandle> acquired = client.lock(
                            name,
                            LockOptions.builder()
                                    .retry(RetryStrategy.fixed(Duration.ofMillis(100)))
                                    .build())
                    .acquireAsync(Duration.ofSeconds(20));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> holder(name) != null && proxy.commands() > before);
            proxy.dropResponses(false);
            LockHandle h = acquired.get(20, TimeUnit.SECONDS);
            assertThat(h.fencingToken()).isEqualTo(1);
            assertThat(fence(name)).as("one grant, one INCR").isEqualTo("1");
            assertThat(holder(name)).isEqualTo(h.owner());
            assertThat(h.release()).isTrue();
        }
    }

    @Test
    @DisplayName("a reply lost and never retried: the orphaned grant is gone within one lease")
    void lostReply_orphanExpiresWithinOneLease() {
        String name = uniqueName("orphan");
        Duration lease = Duration.ofSeconds(1);
        try (RespProxy proxy = RespProxy.start(
                        server.endpoint().host(), server.endpoint().port());
                RedisLockBackend lost = RedisLockBackend.connect(
                        URI.create("redis://127.0.0.1:" + proxy.port()), Map.of("timeout", "200ms"));
                RedisLockBackend other = RedisLockBackend.connect(RedisServers.uri(server))) {
            warmUp(lost);
            proxy.dropResponses(true);
            long sent = System.nanoTime();
            assertThatThrownBy(() -> lost.tryAcquire(new AcquireRequest(name, "owner-orphan", lease, Fairness.NONE)))
                    .isInstanceOf(BackendUnavailableException.class);
            assertThat(holder(name)).isEqualTo("owner-orphan");
            AcquireRequest next = new AcquireRequest(name, "owner-next", Duration.ofSeconds(10), Fairness.NONE);
            Awaitility.await()
                    .atMost(lease.plusMillis(500))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> other.tryAcquire(next) instanceof Grant);
            long freedAfter = System.nanoTime() - sent;
            assertThat(freedAfter)
                    .as("freed after %d ms", freedAfter / 1_000_000)
                    .isLessThanOrEqualTo(lease.plusMillis(500).toNanos());
        }
    }

    @Test
    @DisplayName("SCRIPT FLUSH does not break clients: scripts run by SHA are reloaded on NOSCRIPT")
    void scriptFlush_isSurvived() {
        try (LockClient client = Latchkey.connect(RedisServers.uri(server))) {
            String name = uniqueName("flush");
            LockHandle h = client.lock(name).tryAcquire().orElseThrow();
            try (Jedis j = direct()) {
                j.scriptFlush();
            }
            assertThat(h.renew()).isTrue();
            try (Jedis j = direct()) {
                j.scriptFlush();
            }
            assertThat(h.release()).isTrue();
            try (Jedis j = direct()) {
                j.scriptFlush();
            }
            client.lock(name).tryAcquire().orElseThrow().close();
        }
    }

    @Test
    @DisplayName("a name with a newline or another control character is rejected before any command is sent")
    void controlCharacters_areRejectedBeforeAnyCommand() {
        try (RespProxy proxy = RespProxy.start(
                        server.endpoint().host(), server.endpoint().port());
                LockClient client = Latchkey.connect("redis://127.0.0.1:" + proxy.port())) {
            client.lock(uniqueName("warm-up")).tryAcquire().orElseThrow().release();
            long before = proxy.commands();
            for (String bad : new String[] {"line\nbreak", "cr\r", "nul\u0000", "del\u007F", "c1\u0085"}) {
                assertThatThrownBy(() -> client.lock(bad)).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> client.inspect(bad)).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> client.forceRelease(bad)).isInstanceOf(IllegalArgumentException.class);
            }
            assertThat(proxy.commands()).isEqualTo(before);
        }
    }
}

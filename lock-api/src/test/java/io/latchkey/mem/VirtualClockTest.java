package io.latchkey.mem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What an application's own tests can do with mem: and a virtual clock. */
class VirtualClockTest {
    private final VirtualClock clock = new VirtualClock();
    private final MemoryStore store = new MemoryStore(clock);

    @Test
    @DisplayName("advancing the clock past the lease expires the grant and reports EXPIRED to the holder")
    void advancingPastTheLeaseExpiresDeterministically() throws Exception {
        try (LockClient a = Latchkey.client(store.newBackend());
                LockClient b = Latchkey.client(store.newBackend())) {
            LockHandle h = a.lock(
                            "job",
                            LockOptions.builder()
                                    .lease(Duration.ofSeconds(30))
                                    .autoRenew(false)
                                    .build())
                    .tryAcquire()
                    .orElseThrow();
            // the core's validity is the lease minus its drift allowance (1 % + 2 ms), counted from the request
            assertThat(h.remaining()).isEqualTo(Duration.ofSeconds(30).minusMillis(302));
            clock.advance(Duration.ofSeconds(29));
            assertThat(h.isValid()).isTrue();
            assertThat(b.lock("job").tryAcquire()).isEmpty();
            clock.advance(Duration.ofSeconds(1));
            assertThat(h.isValid()).isFalse();
            LockLoss loss = h.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(loss.reason()).isEqualTo(LockLoss.Reason.EXPIRED);
            assertThat(loss.at()).isEqualTo(clock.now());
            try (LockHandle next = b.lock("job").tryAcquire().orElseThrow()) {
                assertThat(next.fencingToken()).isGreaterThan(h.fencingToken());
            }
        }
    }

    @Test
    @DisplayName(
            "with auto-renew on, renewals on the real scheduler keep the grant as virtual time moves in small steps")
    void renewedGrantSurvivesSmallSteps() {
        try (LockClient a = Latchkey.client(store.newBackend())) {
            LockHandle h = a.lock(
                            "renewed",
                            LockOptions.builder().lease(Duration.ofMillis(300)).build())
                    .tryAcquire()
                    .orElseThrow();
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                clock.advance(Duration.ofMillis(50));
                assertThat(clock.nanoTime()).isGreaterThan(Duration.ofSeconds(1).toNanos());
            });
            assertThat(h.isValid()).isTrue();
        }
    }

    @Test
    void inspectShowsStoreTimes() {
        try (LockClient a = Latchkey.client(store.newBackend())) {
            LockHandle h = a.lock(
                            "seen",
                            LockOptions.builder().lease(Duration.ofSeconds(10)).build())
                    .tryAcquire()
                    .orElseThrow();
            var info = a.inspect("seen").orElseThrow();
            assertThat(info.acquiredAt()).contains(clock.now());
            assertThat(info.expiresAt()).contains(clock.now().plusSeconds(10));
            assertThat(info.owner()).isEqualTo(h.owner());
        }
    }
}

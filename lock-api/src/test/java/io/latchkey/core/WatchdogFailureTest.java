package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.mem.MemoryStore;
import io.latchkey.spi.Grant;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.TimeSource;
import io.latchkey.testing.CountingBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * DESIGN §4.5 when the watchdog itself fails: whatever is thrown while renewing or reporting a loss (an Error,
 * a wall clock that throws as under a clock-faking tool), the handle turns invalid and lost() completes at
 * once, with the cause. Nothing on that path may read the wall clock.
 */
class WatchdogFailureTest {
    /** How long a loss may take to show once it happened; far below every lease used here. */
    private static final long PROMPT_SECONDS = 5;

    /** The system's monotonic clock with a wall clock that throws, as the clock-faking tool in the report did. */
    static final class ThrowingWallClock implements TimeSource {
        volatile boolean monotonicFails;
        volatile boolean wallWorks;

        @Override
        public long nanoTime() {
            if (monotonicFails) {
                throw new InternalError("monotonic clock faked out (expected in this test)");
            }
            return System.nanoTime();
        }

        @Override
        public Instant now() {
            if (wallWorks) {
                return Instant.now();
            }
            throw new InternalError("wall clock faked out (expected in this test)");
        }
    }

    /** A mem: backend whose renew() is replaced by the test. */
    static final class RenewingBackend extends io.latchkey.testing.ForwardingBackend {
        volatile BiFunction<Grant, Duration, RenewResult> renew;

        RenewingBackend(LockBackend delegate) {
            super(delegate);
        }

        @Override
        public RenewResult renew(Grant grant, Duration lease) {
            BiFunction<Grant, Duration, RenewResult> r = renew;
            return r != null ? r.apply(grant, lease) : super.renew(grant, lease);
        }
    }

    private final ThrowingWallClock clock = new ThrowingWallClock();
    private final MemoryStore store = new MemoryStore(clock);
    private final RenewingBackend backend = new RenewingBackend(store.newBackend());
    private final LockClient client = Latchkey.client(backend);

    @AfterEach
    void close() {
        clock.monotonicFails = false;
        client.close();
    }

    private static LockLoss lostPromptly(LockHandle h) throws Exception {
        return h.lost().toCompletableFuture().get(PROMPT_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName(
            "a wall clock that throws: acquire, renew and release work, and the store losing the grant is reported at once")
    void throwingWallClockStoreLosesTheGrant() throws Exception {
        LockHandle h = client.lock(
                        "wall",
                        LockOptions.builder().lease(Duration.ofSeconds(30)).build())
                .tryAcquire()
                .orElseThrow();
        assertThat(h.isValid()).isTrue();
        assertThat(h.renew()).isTrue();
        assertThat(client.inspect("wall"))
                .get()
                .satisfies(info -> assertThat(info.acquiredAt()).isEmpty());
        assertThat(client.forceRelease("wall")).isTrue();
        LockLoss loss = lostPromptly(h);
        assertThat(loss.reason()).isEqualTo(LockLoss.Reason.RELEASED_BY_ADMIN);
        assertThat(loss.at())
                .as("shown from the system clock instead")
                .isNotNull()
                .isNotEqualTo(Instant.EPOCH);
        assertThat(h.isValid()).isFalse();
        assertThatThrownBy(h::acquiredAt)
                .as("asked for, the broken wall clock says so")
                .isInstanceOf(InternalError.class);
        try (LockHandle again = client.lock("wall").tryAcquire().orElseThrow()) {
            assertThat(again.isValid()).isTrue();
        }
    }

    @Test
    @DisplayName(
            "a wall clock that throws: a renewal the store refuses is reported at once, long before the lease ends")
    void throwingWallClockRenewalRefused() throws Exception {
        LockHandle h = client.lock(
                        "refused",
                        LockOptions.builder()
                                .lease(Duration.ofSeconds(30))
                                .renewInterval(Duration.ofMillis(100))
                                .build())
                .tryAcquire()
                .orElseThrow();
        backend.renew = (g, lease) -> RenewResult.notHeld(LockLoss.Reason.EXPIRED);
        LockLoss loss = lostPromptly(h);
        assertThat(loss.reason()).isEqualTo(LockLoss.Reason.EXPIRED);
        assertThat(h.isValid()).isFalse();
        assertThat(client.held()).isEmpty();
    }

    @Test
    @DisplayName(
            "the wall clock starts throwing while a lock is held (the reported case): loss reporting is not held up by it")
    void wallClockFailsInsideLossReporting() throws Exception {
        clock.wallWorks = true;
        LockHandle h = client.lock(
                        "reported",
                        LockOptions.builder()
                                .lease(Duration.ofSeconds(30))
                                .renewInterval(Duration.ofMillis(100))
                                .build())
                .tryAcquire()
                .orElseThrow();
        clock.wallWorks = false;
        backend.renew = (g, lease) -> RenewResult.notHeld(LockLoss.Reason.RELEASED_BY_ADMIN);
        LockLoss loss = lostPromptly(h);
        assertThat(loss.reason()).isEqualTo(LockLoss.Reason.RELEASED_BY_ADMIN);
        assertThat(h.isValid()).isFalse();
    }

    @Test
    @DisplayName(
            "a wall clock that throws: renewals failing with exceptions end in RENEWAL_FAILED before validity ends, with the cause")
    void throwingWallClockRenewalsFail() throws Exception {
        // the loss is due 500 ms (the core's largest guard) before validity ends: a lease long enough for that guard
        Duration lease = Duration.ofSeconds(5);
        LockHandle h = client.lock("failing", LockOptions.builder().lease(lease).build())
                .tryAcquire()
                .orElseThrow();
        long leaseEnd = System.nanoTime() + lease.toNanos();
        RuntimeException outage = new io.latchkey.BackendUnavailableException(
                "store unreachable (expected in this test)", "failing", "mem:", null);
        backend.renew = (g, l) -> {
            throw outage;
        };
        LockLoss loss = h.lost().toCompletableFuture().get(lease.getSeconds() + PROMPT_SECONDS, TimeUnit.SECONDS);
        long seen = System.nanoTime();
        assertThat(loss.reason()).isEqualTo(LockLoss.Reason.RENEWAL_FAILED);
        assertThat(loss.cause()).isSameAs(outage);
        assertThat(seen - leaseEnd).as("reported before the lease ran out").isNegative();
        assertThat(h.isValid()).isFalse();
    }

    @Test
    @DisplayName("a background renewal that throws an Error: lost at once with that Error as the cause, handle invalid")
    void renewalThrowingAnErrorIsALossAtOnce() throws Exception {
        RenewingBackend systemClock = new RenewingBackend(new MemoryStore().newBackend());
        try (LockClient c = Latchkey.client(systemClock)) {
            LockHandle h = c.lock(
                            "error",
                            LockOptions.builder()
                                    .lease(Duration.ofSeconds(60))
                                    .renewInterval(Duration.ofMillis(100))
                                    .build())
                    .tryAcquire()
                    .orElseThrow();
            StackOverflowError bug = new StackOverflowError("renewal bug (expected in this test)");
            systemClock.renew = (g, l) -> {
                throw bug;
            };
            LockLoss loss = lostPromptly(h);
            assertThat(loss.reason()).isEqualTo(LockLoss.Reason.RENEWAL_FAILED);
            assertThat(loss.cause()).isSameAs(bug);
            assertThat(loss.detail()).contains("StackOverflowError").contains("at once");
            assertThat(h.isValid()).isFalse();
            assertThat(h.remaining()).isZero();
            assertThat(c.held()).isEmpty();
            try (LockHandle again = c.lock("error").acquire(Duration.ofSeconds(10))) {
                assertThat(again.isValid())
                        .as("the local gate was left; the store grant was given back")
                        .isTrue();
            }
        }
    }

    @Test
    @DisplayName(
            "a renewal the user asks for that throws an Error: the Error reaches the user and the loss is reported at once")
    void explicitRenewalThrowingAnError() throws Exception {
        LockHandle h = client.lock(
                        "explicit",
                        LockOptions.builder().lease(Duration.ofSeconds(60)).build())
                .tryAcquire()
                .orElseThrow();
        AssertionError bug = new AssertionError("renewal bug (expected in this test)");
        backend.renew = (g, l) -> {
            throw bug;
        };
        assertThatThrownBy(h::renew).isSameAs(bug);
        LockLoss loss = lostPromptly(h);
        assertThat(loss.cause()).isSameAs(bug);
        assertThat(h.isValid()).isFalse();
    }

    @Test
    @DisplayName(
            "a TimeSource that starts throwing inside the watchdog: lost at once with the cause, not 'may report its loss late'")
    void throwingMonotonicClockInTheWatchdog() throws Exception {
        AtomicReference<LockLoss> viaListener = new AtomicReference<>();
        client.addListener(new io.latchkey.LockListener() {
            @Override
            public void lost(LockLoss loss) {
                viaListener.set(loss);
            }
        });
        LockHandle h = client.lock(
                        "ticking",
                        LockOptions.builder()
                                .lease(Duration.ofSeconds(60))
                                .renewInterval(Duration.ofMillis(100))
                                .build())
                .tryAcquire()
                .orElseThrow();
        clock.monotonicFails = true;
        LockLoss loss = lostPromptly(h);
        assertThat(loss.reason()).isEqualTo(LockLoss.Reason.RENEWAL_FAILED);
        assertThat(loss.cause()).isInstanceOf(InternalError.class).hasMessageContaining("monotonic clock faked out");
        assertThat(h.isValid()).isFalse();
        await().atMost(Duration.ofSeconds(PROMPT_SECONDS))
                .untilAsserted(() -> assertThat(viaListener.get()).isSameAs(loss));
    }

    @Test
    @DisplayName("the counting wrapper sees no renewal after a loss at once: the watchdog of a lost grant is gone")
    void noRenewalAfterALossAtOnce() throws Exception {
        RenewingBackend failing = new RenewingBackend(new MemoryStore(clock).newBackend());
        CountingBackend counting = new CountingBackend(failing);
        try (LockClient c = Latchkey.client(counting)) {
            LockHandle h = c.lock(
                            "quiet",
                            LockOptions.builder()
                                    .lease(Duration.ofSeconds(60))
                                    .renewInterval(Duration.ofMillis(50))
                                    .build())
                    .tryAcquire()
                    .orElseThrow();
            failing.renew = (g, l) -> {
                throw new LinkageError("renewal bug (expected in this test)");
            };
            lostPromptly(h);
            int renewals = counting.count("renew");
            // nothing may happen for six renew intervals: checked throughout the window, not once at its end
            await().during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> counting.count("renew") == renewals);
        }
    }
}

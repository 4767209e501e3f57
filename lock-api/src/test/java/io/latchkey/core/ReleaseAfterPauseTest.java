package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.mem.MemoryStore;
import io.latchkey.spi.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/*
 * A process paused for longer than its lease (SIGSTOP, a long GC pause, a frozen VM) resumes with its watchdog's
 * loss timer overdue, and the owner's thread may reach release() before the timer thread runs. Found by the TCK's
 * process_pausedHolderSeesItsLossBeforeItWritesAgain (2 runs of about 15): the release won, the grant ended as
 * "released", and lost() never completed. The pause is simulated by a monotonic clock that jumps once the watchdog's
 * timer is armed (armed lazily, by the scheduler's sweep up to 100 ms after the acquisition: the test waits for it):
 * the real timer still waits its original delay, so only the release can find the loss.
 */
class ReleaseAfterPauseTest {
    /** The system's monotonic clock plus a jump, as a paused process sees it when it runs again. */
    static final class JumpingClock implements TimeSource {
        volatile long jumpNanos;

        @Override
        public long nanoTime() {
            return System.nanoTime() + jumpNanos;
        }

        @Override
        public Instant now() {
            return Instant.now();
        }
    }

    /**
     * Until the sweep has run (the client's first task: ranCount counts it before it arms) and the watchdog's timer
     * it armed is the one task in the scheduler's queue.
     */
    private static void awaitTimerArmed(LockClient client) {
        DeadlineTimer timer = ((CoreLockClient) client).executors.scheduler;
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(1))
                .until(() -> timer.ranCount() > 0 && timer.pendingCount() == 1);
    }

    @Test
    @DisplayName("a release after the validity ran out, before the timer fired, reports the loss and returns false")
    void releaseAfterAPauseLongerThanTheLeaseReportsTheLoss() throws Exception {
        JumpingClock clock = new JumpingClock();
        try (LockClient client = Latchkey.client(new MemoryStore(clock).newBackend())) {
            LockHandle h = client.lock("paused", LockOptions.builder().lease(Duration.ofSeconds(10)).build())
                    .tryAcquire()
                    .orElseThrow();
            awaitTimerArmed(client);
            clock.jumpNanos = Duration.ofSeconds(30).toNanos(); // the whole process was stopped for 30 s
            assertThat(h.isValid()).isFalse();
            assertThat(h.release()).as("release() of a grant whose validity ran out").isFalse();
            LockLoss loss = h.lost().toCompletableFuture().get(2, TimeUnit.SECONDS); // the real timer: ~10 s away
            assertThat(loss.reason()).isEqualTo(LockLoss.Reason.RENEWAL_FAILED);
            assertThat(loss.detail()).contains("found when the lock was released");
        }
    }

    @Test
    @DisplayName("a release within the validity is a release: true, and no loss")
    void releaseWithinTheValidityIsARelease() {
        JumpingClock clock = new JumpingClock();
        try (LockClient client = Latchkey.client(new MemoryStore(clock).newBackend())) {
            LockHandle h = client.lock("kept", LockOptions.builder().lease(Duration.ofSeconds(10)).build())
                    .tryAcquire()
                    .orElseThrow();
            awaitTimerArmed(client);
            clock.jumpNanos = Duration.ofSeconds(5).toNanos();
            assertThat(h.release()).isTrue();
            assertThat(h.lost().toCompletableFuture()).isNotDone();
        }
    }
}

package io.latchkey.mem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.Fairness;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.HandOver;
import io.latchkey.spi.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The store's clock readings (MemoryStore's note, "Clock readings"): an uncontended step reads the clock once, and a
 * step that had to wait for the slot's lock judges expiry with a reading taken under it, not the one from before.
 */
class MemoryClockReadsTest {
    private static final Duration LEASE = Duration.ofSeconds(10);

    /** A clock set by the test, counting its readings; unlike VirtualClock it expires nothing when it moves. */
    private static final class SetClock implements TimeSource {
        final AtomicLong nanos = new AtomicLong();
        final AtomicInteger reads = new AtomicInteger();

        @Override
        public long nanoTime() {
            reads.incrementAndGet();
            return nanos.get();
        }

        @Override
        public Instant now() {
            return Instant.EPOCH.plusNanos(nanos.get());
        }

        int readsDuring(Runnable step) {
            int before = reads.get();
            step.run();
            return reads.get() - before;
        }
    }

    private final SetClock clock = new SetClock();
    private final MemoryStore store = new MemoryStore(clock);
    private final MemoryBackend backend = store.newBackend();

    private static AcquireRequest request(String name, String owner) {
        return new AcquireRequest(name, owner, LEASE, Fairness.PREFERRED);
    }

    @Test
    @DisplayName("an uncontended tryAcquire, acquire, renew, hand-over and release each read the store's clock once")
    void anUncontendedStepReadsTheClockOnce() throws InterruptedException {
        Grant[] g = new Grant[1];
        assertThat(clock.readsDuring(() -> g[0] = (Grant) backend.tryAcquire(request("a", "one"))))
                .as("tryAcquire")
                .isEqualTo(1);
        assertThat(clock.readsDuring(() -> assertThat(backend.renew(g[0], LEASE).held()).isTrue()))
                .as("renew")
                .isEqualTo(1);
        HandOver[] h = new HandOver[1];
        assertThat(clock.readsDuring(() -> h[0] = backend.handOver(g[0], request("a", "two"))))
                .as("handOver")
                .isEqualTo(1);
        assertThat(h[0].next()).isNotNull();
        assertThat(clock.readsDuring(() -> assertThat(backend.release(h[0].next())).isTrue()))
                .as("release")
                .isEqualTo(1);
        int before = clock.reads.get();
        assertThat(backend.acquire(request("b", "three"), Duration.ofSeconds(1))).isInstanceOf(Grant.class);
        assertThat(clock.reads.get() - before).as("acquire with a wait, on a free lock").isEqualTo(1);
    }

    @Test
    @DisplayName("a step that waited for the slot's lock judges expiry by a reading taken under it")
    void aStepThatWaitedForTheSlotJudgesExpiryAfterTheWait() throws Exception {
        Grant held = (Grant) backend.tryAcquire(request("c", "holder"));
        ReentrantLock slotLock = store.slot("c").lock;
        slotLock.lock();
        CompletableFuture<AcquireResult> attempt;
        try {
            // the attempt reads the clock (t = 0, the holder live), then waits here for the lock
            attempt = CompletableFuture.supplyAsync(() -> backend.tryAcquire(request("c", "next")));
            await().atMost(Duration.ofSeconds(10)).until(slotLock::hasQueuedThreads);
            clock.nanos.addAndGet(LEASE.plusSeconds(1).toNanos()); // the holder's lease ran out meanwhile
        } finally {
            slotLock.unlock();
        }
        AcquireResult result = attempt.get(10, TimeUnit.SECONDS);
        assertThat(result)
                .as("the holder (token %d) expired while the attempt waited for the slot: judged at the reading"
                        + " from before the wait, it would be busy", held.fencingToken())
                .isInstanceOf(Grant.class);
        assertThat(((Grant) result).fencingToken()).isGreaterThan(held.fencingToken());
    }
}

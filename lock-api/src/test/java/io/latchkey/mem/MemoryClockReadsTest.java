package io.latchkey.mem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.Fairness;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The store's clock readings (MemoryStore's note, "Clock readings"): an uncontended acquisition reads the clock once;
 * one that had to wait for the slot's lock judges expiry with a reading taken under it, not the one from before; and a
 * renewal or hand-over always judges the caller's own grant by a reading under the lock, so it never revives a grant
 * that ended while its thread waited.
 */
class MemoryClockReadsTest {
    private static final Duration LEASE = Duration.ofSeconds(10);

    /**
     * A clock set by the test, counting its readings; unlike VirtualClock it expires nothing when it moves. It can
     * hold the thread that takes its next reading after the reading (a thread descheduled there), until let go.
     */
    private static final class SetClock implements TimeSource {
        final AtomicLong nanos = new AtomicLong();
        final AtomicInteger reads = new AtomicInteger();
        volatile CountDownLatch holdAfterNextReading;
        volatile CountDownLatch held = new CountDownLatch(1); // counted down when a reading is held

        /** Holds the thread that takes the next reading until {@code letGo}; answers the latch that says it is held. */
        CountDownLatch holdNextReadingUntil(CountDownLatch letGo) {
            CountDownLatch signal = new CountDownLatch(1);
            held = signal;
            holdAfterNextReading = letGo;
            return signal;
        }

        volatile long stepPerReading; // a clock that moves between any two readings

        @Override
        public long nanoTime() {
            reads.incrementAndGet();
            long reading = nanos.getAndAdd(stepPerReading);
            CountDownLatch hold = holdAfterNextReading;
            if (hold != null) {
                holdAfterNextReading = null;
                held.countDown();
                try {
                    hold.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return reading;
        }

        @Override
        public Instant now() {
            return Instant.EPOCH.plusNanos(nanos.get());
        }
    }

    /** A store step that may wait (acquire). */
    private interface Step<T> {
        T run() throws InterruptedException;
    }

    private final SetClock clock = new SetClock();
    private final MemoryStore store = new MemoryStore(clock);
    private final MemoryBackend backend = store.newBackend();
    private final ExecutorService stepper = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        stepper.shutdownNow();
    }

    private static AcquireRequest request(String name, String owner) {
        return new AcquireRequest(name, owner, LEASE, Fairness.PREFERRED);
    }

    private <T> T countingReads(String what, int expected, Step<T> step) throws InterruptedException {
        int before = clock.reads.get();
        T result = step.run();
        assertThat(clock.reads.get() - before).as("clock readings of %s", what).isEqualTo(expected);
        return result;
    }

    @Test
    @DisplayName("an uncontended acquisition reads the store's clock once: tryAcquire, acquire, read-write, permits")
    void anUncontendedAcquisitionReadsTheClockOnce() throws InterruptedException {
        Grant g = (Grant) countingReads("tryAcquire", 1, () -> backend.tryAcquire(request("a", "one")));
        assertThat(backend.release(g)).isTrue();
        assertThat(countingReads("acquire with a wait, on a free lock", 1,
                        () -> backend.acquire(request("b", "two"), Duration.ofSeconds(1))))
                .isInstanceOf(Grant.class);
        AcquireRequest write = new AcquireRequest("c", "three", LEASE, Fairness.PREFERRED, GrantKind.WRITE);
        assertThat(countingReads("a write lock's tryAcquire", 1, () -> backend.tryAcquire(write)))
                .isInstanceOf(Grant.class);
        AcquireRequest permits = new AcquireRequest("d", "four", LEASE, Fairness.PREFERRED, GrantKind.permits(1, 2));
        assertThat(countingReads("a semaphore's tryAcquire", 1, () -> backend.tryAcquire(permits)))
                .isInstanceOf(Grant.class);
    }

    @Test
    @DisplayName("an acquisition that waited for the slot's lock judges expiry by a reading taken under it")
    void anAcquisitionThatWaitedForTheSlotJudgesExpiryAfterTheWait() throws Exception {
        Grant held = (Grant) backend.tryAcquire(request("e", "holder"));
        // the attempt reads the clock (the holder live), then waits for the lock while the holder's lease runs out
        AcquireResult result = whileTheSlotIsLockedAndTheLeaseRunsOut("e", () -> backend.tryAcquire(request("e", "next")));
        assertThat(result)
                .as("the holder (token %d) expired while the attempt waited for the slot: judged at the reading"
                        + " from before the wait, it would be busy", held.fencingToken())
                .isInstanceOf(Grant.class);
        assertThat(((Grant) result).fencingToken()).isGreaterThan(held.fencingToken());
    }

    @Test
    @DisplayName("a renewal or hand-over paused after its first clock reading while its grant ran out does not revive it")
    void aRenewalOrHandOverPausedAfterItsReadingDoesNotReviveAnEndedGrant() throws Exception {
        Grant renewed = (Grant) backend.tryAcquire(request("f", "holder"));
        RenewResult r = pausedAfterItsReadingWhileTheLeaseRunsOut(() -> backend.renew(renewed, LEASE));
        assertThat(r.held())
                .as("a renewal that read the clock before its grant (token %d) ended, and found the slot's lock free"
                        + " after, revived it", renewed.fencingToken())
                .isFalse();
        Grant handed = (Grant) backend.tryAcquire(request("g", "holder"));
        assertThat(pausedAfterItsReadingWhileTheLeaseRunsOut(() -> backend.handOver(handed, request("g", "next")))
                        .next())
                .as("a hand-over of a grant (token %d) that ended while its thread was paused", handed.fencingToken())
                .isNull();
    }

    /**
     * Runs {@code step} on another thread, held after its first clock reading (before it takes the slot's lock, which
     * is free) while the clock moves past the lease.
     */
    private <T> T pausedAfterItsReadingWhileTheLeaseRunsOut(Step<T> step) throws Exception {
        CountDownLatch letGo = new CountDownLatch(1);
        CountDownLatch held = clock.holdNextReadingUntil(letGo);
        Future<T> running = stepper.submit(step::run);
        try {
            assertThat(held.await(10, TimeUnit.SECONDS)).as("the step read the clock").isTrue();
            clock.nanos.addAndGet(LEASE.plusSeconds(1).toNanos());
        } finally {
            letGo.countDown();
        }
        return running.get(10, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("a grant's validity never outlasts the store's expiry of it, also for a queued waiter, on a moving clock")
    void aGrantsValidityNeverOutlastsTheStoresExpiry() throws Exception {
        clock.stepPerReading = TimeUnit.MILLISECONDS.toNanos(1);
        Grant first = (Grant) backend.tryAcquire(request("h", "first"));
        assertThat(first.validUntilNanos()).as("a free lock's grant").isLessThanOrEqualTo(expiryOf("h"));
        Future<AcquireResult> queued = stepper.submit(() -> backend.acquire(request("h", "queued"), Duration.ofSeconds(30)));
        MemorySlot slot = store.slot("h");
        await().atMost(Duration.ofSeconds(10)).until(() -> underTheSlotLock(slot, () -> !slot.queue.isEmpty()));
        assertThat(backend.release(first)).isTrue();
        Grant second = (Grant) queued.get(10, TimeUnit.SECONDS);
        assertThat(second.validUntilNanos())
                .as("the queued waiter's grant (token %d): validity reported past the store's expiry",
                        second.fencingToken())
                .isLessThanOrEqualTo(expiryOf("h"));
    }

    private long expiryOf(String name) {
        MemorySlot slot = store.slot(name);
        return underTheSlotLock(slot, () -> slot.expiresAt);
    }

    private static <T> T underTheSlotLock(MemorySlot slot, java.util.function.Supplier<T> read) {
        slot.lock.lock();
        try {
            return read.get();
        } finally {
            slot.lock.unlock();
        }
    }

    /**
     * Holds the name's slot lock while {@code step} runs on another thread: once that thread waits for the lock, the
     * clock moves past the lease, then the lock is given back and the step's answer returned.
     */
    private <T> T whileTheSlotIsLockedAndTheLeaseRunsOut(String name, Step<T> step) throws Exception {
        ReentrantLock slotLock = store.slot(name).lock;
        Future<T> running;
        slotLock.lock();
        try {
            running = stepper.submit(step::run);
            await().atMost(Duration.ofSeconds(10)).until(slotLock::hasQueuedThreads);
            clock.nanos.addAndGet(LEASE.plusSeconds(1).toNanos());
        } finally {
            slotLock.unlock();
        }
        return running.get(10, TimeUnit.SECONDS);
    }
}

package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DeadlineTimerTest {
    private final DeadlineTimer timer = new DeadlineTimer(r -> {
        Thread t = new Thread(r, "test-timer");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void stop() {
        timer.shutdown();
    }

    @Test
    @DisplayName("deferred armings: one timed sweep for the first push arms them all, and a stack SWEEP_AT_DEPTH deep"
            + " is swept at once")
    void deferredArmingsAreSweptByTimeAndByDepth() throws Exception {
        AtomicInteger armed = new AtomicInteger();
        // the timer thread is kept busy while the stack is built, so that no sweep runs before the counts are read
        CountDownLatch release = holdTheTimerThread();
        long before = timer.scheduledCount();
        try {
            for (int i = 0; i < DeadlineTimer.SWEEP_AT_DEPTH - 1; i++) {
                timer.armLater(new CountingDeferred(armed));
            }
            assertThat(timer.scheduledCount() - before).as("sweeps scheduled for the first pushes").isEqualTo(1);
            timer.armLater(new CountingDeferred(armed));
            assertThat(timer.scheduledCount() - before)
                    .as("sweeps scheduled once the stack is %d deep", DeadlineTimer.SWEEP_AT_DEPTH)
                    .isEqualTo(2);
        } finally {
            release.countDown();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> armed.get() == DeadlineTimer.SWEEP_AT_DEPTH);
        // a later push is armed too: by the timed sweep if it is still to come, else by one of its own
        timer.armLater(new CountingDeferred(armed));
        await().atMost(Duration.ofSeconds(5)).until(() -> armed.get() == DeadlineTimer.SWEEP_AT_DEPTH + 1);
    }

    @Test
    @DisplayName("deferred armings pushed by many threads (onto their stripes' stacks) are all armed by one timed sweep")
    void oneSweepArmsTheDeferredOfEveryThread() throws Exception {
        AtomicInteger armed = new AtomicInteger();
        int threads = 16;
        int each = 50; // 800 in all, no stack SWEEP_AT_DEPTH deep: only the timed sweep arms them
        CountDownLatch release = holdTheTimerThread();
        long before = timer.scheduledCount();
        try {
            Thread[] pushers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                pushers[t] = new Thread(() -> {
                    for (int i = 0; i < each; i++) {
                        timer.armLater(new CountingDeferred(armed));
                    }
                });
                pushers[t].start();
            }
            for (Thread t : pushers) {
                t.join();
            }
            assertThat(timer.scheduledCount() - before).as("sweeps scheduled").isEqualTo(1);
        } finally {
            release.countDown();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> armed.get() == threads * each);
    }

    /** Keeps the timer thread in a task until the returned latch is counted down: no sweep runs meanwhile. */
    private CountDownLatch holdTheTimerThread() throws InterruptedException {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        timer.schedule(
                () -> {
                    busy.countDown();
                    awaitQuietly(release, Duration.ofSeconds(30));
                },
                0);
        assertThat(busy.await(5, TimeUnit.SECONDS)).isTrue();
        return release;
    }

    private static final class CountingDeferred extends DeadlineTimer.Deferred {
        private final AtomicInteger armed;

        CountingDeferred(AtomicInteger armed) {
            this.armed = armed;
        }

        @Override
        void armNow() {
            armed.incrementAndGet();
        }
    }

    @Test
    @DisplayName("tasks run in deadline order, not in the order they were scheduled")
    void runsInDeadlineOrder() {
        List<Integer> ran = new CopyOnWriteArrayList<>();
        timer.schedule(() -> ran.add(3), ms(300));
        timer.schedule(() -> ran.add(1), ms(100));
        timer.schedule(() -> ran.add(2), ms(200));
        await().atMost(Duration.ofSeconds(5)).until(() -> ran.size() == 3);
        assertThat(ran).containsExactly(1, 2, 3);
    }

    @Test
    @DisplayName("a task scheduled earlier than the deadline the thread sleeps until still runs on time")
    void anEarlierDeadlineWakesASleepingThread() throws InterruptedException {
        timer.schedule(() -> {}, TimeUnit.MINUTES.toNanos(10)); // the thread now sleeps for 10 minutes
        await().atMost(Duration.ofSeconds(5)).until(() -> timer.pendingCount() == 1);
        CountDownLatch ran = new CountDownLatch(1);
        long start = System.nanoTime();
        timer.schedule(ran::countDown, ms(50));
        assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(ms(50));
    }

    @Test
    @DisplayName("an idle thread (nothing pending) is woken by the first task")
    void anIdleThreadIsWoken() throws InterruptedException {
        CountDownLatch ran = new CountDownLatch(1);
        timer.schedule(ran::countDown, 0);
        assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    @DisplayName("a cancelled task never runs and leaves nothing pending")
    void cancelledTasksNeverRun() throws InterruptedException {
        AtomicInteger cancelledRuns = new AtomicInteger();
        for (int i = 0; i < 1000; i++) {
            timer.schedule(cancelledRuns::incrementAndGet, ms(100)).cancel();
        }
        CountDownLatch marker = new CountDownLatch(1);
        timer.schedule(marker::countDown, ms(200));
        assertThat(marker.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(cancelledRuns).hasValue(0);
        assertThat(timer.pendingCount()).isZero();
    }

    @Test
    @DisplayName("cancel reports whether it kept the task from running: true while pending, false once taken")
    void cancelReportsWhetherItWon() throws InterruptedException {
        assertThat(timer.schedule(() -> {}, TimeUnit.MINUTES.toNanos(10)).cancel()).isTrue();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        DeadlineTimer.Timeout taken = timer.schedule(
                () -> {
                    running.countDown();
                    awaitQuietly(finish);
                },
                0);
        assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(taken.cancel()).as("cancel of a task already running").isFalse();
        finish.countDown();
        DeadlineTimer.Timeout twice = timer.schedule(() -> {}, TimeUnit.MINUTES.toNanos(10));
        twice.cancel();
        assertThat(twice.cancel()).as("a second cancel").isFalse();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        awaitQuietly(latch, Duration.ofSeconds(5));
    }

    private static void awaitQuietly(CountDownLatch latch, Duration atMost) {
        try {
            latch.await(atMost.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    @DisplayName("a task that throws does not stop the timer")
    void aFailingTaskDoesNotStopTheTimer() throws InterruptedException {
        timer.schedule(
                () -> {
                    throw new IllegalStateException("boom (expected in this test)");
                },
                0);
        CountDownLatch ran = new CountDownLatch(1);
        timer.schedule(ran::countDown, ms(10));
        assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    @DisplayName("many threads scheduling at once: every task runs exactly once")
    void concurrentSchedulingRunsEveryTaskOnce() throws InterruptedException {
        AtomicInteger runs = new AtomicInteger();
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 2000; i++) {
                    timer.schedule(runs::incrementAndGet, (i % 7) * 100_000L);
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 8000);
        assertThat(timer.pendingCount()).isZero();
    }

    @Test
    @DisplayName("after shutdown scheduling is rejected")
    void shutdownRejects() {
        timer.shutdown();
        assertThatThrownBy(() -> timer.schedule(() -> {}, 0)).isInstanceOf(RejectedExecutionException.class);
    }

    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }
}

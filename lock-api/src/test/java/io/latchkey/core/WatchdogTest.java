package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.mem.MemoryStore;
import io.latchkey.testing.CountingBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class WatchdogTest {
    private final MemoryStore store = new MemoryStore();
    private final CountingBackend counting = new CountingBackend(store.newBackend());
    private final LockClient client = Latchkey.client(counting);

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    @DisplayName("a lock released soon after it was taken never enters the timer's queue: one sweep per 100 ms arms "
            + "the timers of those still held")
    void aLockReleasedBeforeTheSweepArmsNoTimer() {
        DeadlineTimer timer = ((CoreLockClient) client).executors.scheduler;
        io.latchkey.DistributedLock lock = client.lock("brief");
        long scheduledBefore = timer.scheduledCount();
        long begin = System.nanoTime();
        for (int i = 0; i < 1000; i++) {
            lock.tryAcquire().orElseThrow().release();
        }
        long elapsed = System.nanoTime() - begin;
        long scheduled = timer.scheduledCount() - scheduledBefore;
        // armed at once, each cycle schedules the watchdog's own timer: 1000. Deferred, only the sweeps: one per
        // DEFER of the loop's duration, at most
        assertThat(scheduled)
                .as("timer tasks scheduled by 1000 cycles in %d ms", elapsed / 1_000_000)
                .isLessThanOrEqualTo(elapsed / DeadlineTimer.DEFER_NANOS + 2);
        await().atMost(Duration.ofSeconds(5)).until(() -> timer.pendingCount() == 0); // the loop's sweeps ran
        long ranBefore = timer.ranCount();
        try (LockHandle held = lock.tryAcquire().orElseThrow()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> timer.ranCount() > ranBefore); // its sweep ran
            // the sweep's task has left the queue: what is left is the timer it armed for the lock still held
            await().atMost(Duration.ofSeconds(5)).until(() -> timer.pendingCount() == 1);
            assertThat(held.isValid()).isTrue();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> timer.pendingCount() == 0);
    }

    @Test
    @DisplayName("auto-renewal runs every lease/3")
    void renewsAtAThirdOfTheLease() {
        // No wall-clock window (a loaded machine stretches any upper bound): orderings that a correct watchdog
        // keeps under any load. Renewal k+1 is armed at (the core's start of renewal k) + lease/3 on a timer that
        // never fires early, so the k-th renewal starts no sooner than k * lease/3 after the acquisition began:
        // a watchdog renewing more often fails at once. And each renewal starts while the grant the previous
        // one made is still valid: one renewing at the lease or later fails, whatever the load.
        List<long[]> renewals = new java.util.concurrent.CopyOnWriteArrayList<>(); // {start, validUntil}
        LockClient timed = Latchkey.client(new io.latchkey.testing.ForwardingBackend(store.newBackend()) {
            @Override
            public io.latchkey.spi.RenewResult renew(io.latchkey.spi.Grant g, Duration lease) {
                long start = System.nanoTime();
                io.latchkey.spi.RenewResult r = super.renew(g, lease);
                renewals.add(new long[] {start, r.validUntilNanos()});
                return r;
            }
        });
        Duration lease = Duration.ofMillis(600);
        long third = lease.dividedBy(3).toNanos();
        long begin = System.nanoTime();
        try (LockHandle h = timed.lock(
                        "cadence", LockOptions.builder().lease(lease).build())
                .tryAcquire()
                .orElseThrow()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> renewals.size() >= 4);
            assertThat(h.isValid()).isTrue();
            for (int k = 0; k < renewals.size(); k++) {
                long[] renewal = renewals.get(k);
                assertThat(renewal[0] - begin)
                        .as("start of renewal %d after the acquisition began, ns", k + 1)
                        .isGreaterThanOrEqualTo((k + 1) * third);
                if (k > 0) {
                    assertThat(renewal[0] - renewals.get(k - 1)[1])
                            .as("renewal %d starts before the validity of renewal %d ends", k + 1, k)
                            .isNegative();
                }
            }
        } finally {
            timed.close();
        }
    }

    @Test
    @DisplayName("one scheduler thread and at most 4 renewal threads serve 300 held locks")
    void noThreadPerLock() {
        List<LockHandle> held = new ArrayList<>();
        LockOptions options =
                LockOptions.builder().lease(Duration.ofMillis(300)).build();
        for (int i = 0; i < 300; i++) {
            held.add(client.lock("many-" + i, options).tryAcquire().orElseThrow());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> counting.count("renew") >= 900);
        long coreThreads = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("latchkey-watchdog")
                        || t.getName().startsWith("latchkey-renewal"))
                .count();
        assertThat(coreThreads).isLessThanOrEqualTo(1 + CoreExecutors.RENEWAL_THREADS);
        assertThat(held).allMatch(LockHandle::isValid);
        held.forEach(LockHandle::close);
        assertThat(client.held()).isEmpty();
    }

    @Test
    @DisplayName("an outage shorter than the lease costs nothing: renewals resume and the lock is kept")
    void shortOutageIsRidden() {
        try (LockHandle h = client.lock(
                        "outage",
                        LockOptions.builder().lease(Duration.ofSeconds(3)).build())
                .tryAcquire()
                .orElseThrow()) {
            store.setAvailable(false);
            int before = counting.count("renew");
            await().atMost(Duration.ofSeconds(3)).until(() -> counting.count("renew") >= before + 1);
            store.setAvailable(true);
            int failedUntil = counting.count("renew");
            await().atMost(Duration.ofSeconds(3)).until(() -> counting.count("renew") > failedUntil);
            assertThat(h.isValid()).isTrue();
            assertThat(h.lost().toCompletableFuture()).isNotDone();
        }
    }

    @Test
    @DisplayName("maxHold is reported as EXPIRED also when the backend subtracts a clock drift from validity")
    void maxHoldWithDriftIsExpired() throws Exception {
        long driftNanos = Duration.ofMillis(40).toNanos();
        LockClient drifting = Latchkey.client(new io.latchkey.testing.DriftingBackend(store.newBackend(), driftNanos));
        try {
            LockHandle h = drifting.lock(
                            "drift",
                            LockOptions.builder()
                                    .lease(Duration.ofMillis(600))
                                    .maxHold(Duration.ofMillis(1000))
                                    .build())
                    .tryAcquire()
                    .orElseThrow();
            var loss = h.lost().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(loss.reason()).isEqualTo(io.latchkey.LockLoss.Reason.EXPIRED);
            assertThat(loss.detail()).contains("max hold");
        } finally {
            drifting.close();
        }
    }

    @Test
    @DisplayName("a backend granting less than the lease is renewed at a third of what it granted")
    void renewsAtAThirdOfTheGrantedValidity() {
        // the backend grants 600 ms less than asked: with a 900 ms lease, validity is 300 ms, so renewals
        // at lease/3 = 300 ms would come too late; they must come every ~100 ms instead
        LockClient shortGrants = Latchkey.client(new io.latchkey.testing.DriftingBackend(
                counting, Duration.ofMillis(600).toNanos()));
        try (LockHandle h = shortGrants
                .lock(
                        "short",
                        LockOptions.builder().lease(Duration.ofMillis(900)).build())
                .tryAcquire()
                .orElseThrow()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> counting.count("renew") >= 8);
            assertThat(h.isValid()).isTrue();
            assertThat(h.lost().toCompletableFuture()).isNotDone();
        } finally {
            shortGrants.close();
        }
    }

    @Test
    @DisplayName("a long lease granted only 2 s by the store (a client lease caps it) renews within those 2 s")
    void longLeaseCappedByTheStoreRenewsInTime() {
        // etcd caps a grant at its client lease (2 s here) whatever the lock's lease: the renewal must come at a
        // third of the 2 s granted. It came at a third of (2 s + the 5 min lease's drift allowance, 3 s) = 1.67 s,
        // after the loss deadline (validity - 500 ms), and the lock was lost with RENEWAL_FAILED
        Duration lease = Duration.ofMinutes(5);
        LockClient capped = Latchkey.client(new io.latchkey.testing.DriftingBackend(
                counting, lease.minusSeconds(2).toNanos()));
        try (LockHandle h = capped.lock("capped", LockOptions.builder().lease(lease).build())
                .tryAcquire()
                .orElseThrow()) {
            await().during(Duration.ofSeconds(4))
                    .atMost(Duration.ofSeconds(6))
                    .until(() -> h.isValid() && !h.lost().toCompletableFuture().isDone());
            assertThat(counting.count("renew")).isGreaterThanOrEqualTo(4);
        } finally {
            capped.close();
        }
    }

    @Test
    @DisplayName("uncontended acquire + release is two store calls")
    void twoStoreCallsPerCycle() throws Exception {
        var lock = client.lock("rt", LockOptions.builder().autoRenew(false).build());
        counting.reset();
        lock.tryAcquire().orElseThrow().close();
        assertThat(counting.total()).isEqualTo(2);
        counting.reset();
        lock.acquire(Duration.ofSeconds(1)).close();
        assertThat(counting.total()).isEqualTo(2);
    }

    @Test
    @DisplayName(
            "the local gate sends one contender per name to the store; the other local waiters make no store calls")
    void localWaitersDoNotPollTheStore() throws Exception {
        LockClient other = Latchkey.client(store.newBackend());
        try {
            LockHandle held = other.lock("gate").tryAcquire().orElseThrow();
            var waiters = new ArrayList<java.util.concurrent.CompletableFuture<Void>>();
            for (int i = 0; i < 5; i++) {
                // each waiter releases as soon as it gets the lock, whatever order they queued in
                waiters.add(
                        client.lock("gate").acquireAsync(Duration.ofSeconds(30)).thenAccept(LockHandle::close));
            }
            await().until(() -> counting.count("acquire") >= 1);
            int calls = counting.total();
            held.release();
            java.util.concurrent.CompletableFuture.allOf(
                            waiters.toArray(new java.util.concurrent.CompletableFuture<?>[0]))
                    .get(10, java.util.concurrent.TimeUnit.SECONDS);
            // each waiter: one acquire and one release once it is at the head; no polling while queued
            assertThat(counting.total() - calls).isLessThanOrEqualTo(5 * 2 + 1);
        } finally {
            other.close();
        }
    }
}

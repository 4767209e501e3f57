package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.LockTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** §4.6 Waiting: waits end in time, a release wakes a waiter, local waiters queue in order, interrupts work. */
public interface WaitingRules extends TckRules {

    /**
     * Rule §4.6 waiting: a waiter acquires soon after the holder releases.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("waiting")
    @DisplayName("§4.6 waiting: a waiter acquires soon after the holder releases")
    default void waiting_waiterAcquiresSoonAfterRelease() throws Exception {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("handoff");
        LockHandle h = Tck.mustAcquire(a.lock(name));
        CompletableFuture<LockHandle> waiter = b.lock(name).acquireAsync(Duration.ofSeconds(60));
        // when the waiter got the lock: runs on the completing thread, or here at once if it is already done
        CompletableFuture<Long> gotAt = waiter.thenApply(got -> System.nanoTime());
        // release only once the waiter has asked the store, so that the release is what must wake it
        tck().awaitAskedTheStore(b);
        long released = System.nanoTime();
        h.release();
        LockHandle got = waiter.get(tck().settings().wakeUp().plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
        long took = System.nanoTime() - released;
        long early = released - gotAt.get();
        got.close();
        // an ordering, not a race: a waiter that got the lock before the holder released it got a held lock
        assertTrue(
                early <= 0, () -> "the waiter acquired a held lock, " + Tck.millis(early) + " ms before its release");
        assertTrue(
                took <= tck().settings().wakeUp().toNanos(),
                () -> "the waiter took " + Tck.millis(took) + " ms after the release; at most "
                        + tck().settings().wakeUp().toMillis() + " ms allowed");
    }

    /** Rule §4.6 waiting: acquire(wait) on a held lock times out within wait plus slack and holds nothing. */
    @Test
    @Tag("waiting")
    @DisplayName("§4.6 waiting: acquire(wait) on a held lock times out within wait plus slack and holds nothing")
    default void waiting_timeoutIsHonoured() {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("timeout");
        Duration wait = Duration.ofMillis(500);
        try (LockHandle h = Tck.mustAcquire(a.lock(name))) {
            long start = System.nanoTime();
            LockTimeoutException e =
                    assertThrows(LockTimeoutException.class, () -> b.lock(name).acquire(wait));
            long took = System.nanoTime() - start;
            assertTrue(
                    took >= wait.toNanos() - TimeUnit.MILLISECONDS.toNanos(1),
                    () -> "gave up early, after " + Tck.millis(took) + " ms");
            assertTrue(
                    took <= wait.plus(tck().settings().slack()).toNanos(),
                    () -> "gave up late, after " + Tck.millis(took) + " ms");
            assertTrue(e.getMessage().contains(name), "the timeout message does not name the lock: " + e.getMessage());
            assertTrue(
                    e.getMessage().contains(b.backend()),
                    "the timeout message does not name the backend: " + e.getMessage());
            assertTrue(b.held().isEmpty());
            assertTrue(b.lock(name).tryAcquire(Duration.ofMillis(50)).isEmpty());
            assertTrue(h.isValid());
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Rule §4.6 waiting: an interrupted waiter stops at once and holds nothing.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("waiting")
    @DisplayName("§4.6 waiting: an interrupted waiter stops at once and holds nothing")
    default void waiting_interruptedWaiterStopsAndHoldsNothing() throws Exception {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        LockClient c = tck().newClient();
        String name = tck().name("interrupt");
        LockHandle h = Tck.mustAcquire(a.lock(name));
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter = new Thread(
                () -> {
                    try {
                        b.lock(name).acquire(Duration.ofSeconds(60)).close();
                        outcome.complete(null);
                    } catch (Throwable t) {
                        outcome.complete(t);
                    }
                },
                "tck-interrupted-waiter");
        waiter.start();
        Tck.awaitParked(waiter, Duration.ofSeconds(10));
        waiter.interrupt();
        Throwable t = outcome.get(tck().settings().slack().toMillis(), TimeUnit.MILLISECONDS);
        assertInstanceOf(InterruptedException.class, t, "the waiter did not end with InterruptedException");
        h.release();
        Tck.mustAcquire(c.lock(name), tck().settings().slack()).close();
        assertTrue(b.held().isEmpty(), "the interrupted waiter's client holds something");
    }

    /**
     * Rule §4.6 waiting: waiters inside one client are served in FIFO order.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("waiting")
    @DisplayName("§4.6 waiting: waiters inside one client are served in FIFO order")
    default void waiting_localWaitersAreServedInOrder() throws Exception {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("fifo");
        LockHandle h = Tck.mustAcquire(a.lock(name));
        DistributedLock lock = b.lock(name, Tck.fastRetry(LockOptions.defaults()));
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> done = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 4; i++) {
            int index = i;
            CompletableFuture<Void> f = new CompletableFuture<>();
            done.add(f);
            Thread t = new Thread(
                    () -> {
                        try (LockHandle mine = lock.acquire(Duration.ofSeconds(60))) {
                            order.add(index);
                            f.complete(null);
                        } catch (Throwable e) {
                            f.completeExceptionally(e);
                        }
                    },
                    "tck-fifo-" + i);
            t.start();
            Tck.awaitParked(t, Duration.ofSeconds(10));
        }
        h.release();
        for (CompletableFuture<Void> f : done) {
            f.get(30, TimeUnit.SECONDS);
        }
        assertEquals(List.of(0, 1, 2, 3), order, "local waiters were not served in arrival order");
    }

    /**
     * Rule §4.6 waiting: a cancelled asynchronous acquisition leaves nothing held.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("waiting")
    @DisplayName("§4.6 waiting: a cancelled asynchronous acquisition leaves nothing held")
    default void waiting_cancelledAsyncAcquireHoldsNothing() throws Exception {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        LockClient c = tck().newClient();
        String name = tck().name("cancel");
        LockHandle h = Tck.mustAcquire(a.lock(name));
        Tck.mustBeBusy(c.lock(name), "another client held it"); // so that the cancelled acquisition had to wait
        CompletableFuture<LockHandle> f = b.lock(name).acquireAsync(Duration.ofSeconds(60));
        f.cancel(true);
        h.release();
        Tck.mustAcquire(
                        c.lock(name),
                        tck().settings().slack(),
                        () -> "expected to acquire lock '" + name + "' within " + tck().settings().slack()
                                + " after its holder released it while a cancelled acquisition was in flight; the store"
                                + " shows it held by " + c.inspect(name).map(i -> i.owner() + " (token "
                                        + i.fencingToken() + ")").orElse("nobody now")
                                + "; the cancelled client holds " + b.held())
                .close();
        Tck.await(tck().settings().slack()).until(() -> b.held().isEmpty());
        assertThrows(java.util.concurrent.CancellationException.class, () -> f.getNow(null));
    }

    /**
     * Rule §4.6 waiting: tryAcquire(wait) returns empty when the wait runs out.
     *
     * @throws InterruptedException if the test thread is interrupted
     * @throws java.util.concurrent.ExecutionException if a task of the rule failed: the rule fails with it
     */
    @Test
    @Tag("waiting")
    @DisplayName("§4.6 waiting: tryAcquire(wait) returns empty when the wait runs out")
    default void waiting_tryAcquireWithWaitReturnsEmpty() throws InterruptedException, ExecutionException {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("trywait");
        try (LockHandle h = Tck.mustAcquire(a.lock(name))) {
            assertTrue(b.lock(name).tryAcquire(Duration.ofMillis(200)).isEmpty());
            assertTrue(b.lock(name).tryAcquireAsync().get().isEmpty());
            assertTrue(h.isValid());
        }
    }
}

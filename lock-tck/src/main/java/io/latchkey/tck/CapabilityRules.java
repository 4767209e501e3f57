package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.Capability;
import io.latchkey.Fairness;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Rules for what a backend claims beyond the core contract ({@link Capability}). */
public interface CapabilityRules extends TckRules {

    private void requireCapability(Capability c) {
        Assumptions.assumeTrue(tck().capabilities().contains(c), "backend does not claim " + c);
    }

    /**
     * Rule FAIR: waiters from different clients are granted in the order they started waiting.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("capabilities")
    @DisplayName("FAIR: waiters from different clients are granted in the order they started waiting")
    default void fair_waitersFromDifferentClientsAreServedInOrder() throws Exception {
        requireCapability(Capability.FAIR);
        LockClient holder = tck().newClient();
        String name = tck().name("fair");
        LockHandle h = Tck.mustAcquire(holder.lock(name));
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> done = new CopyOnWriteArrayList<>();
        LockOptions slowPolling = LockOptions.builder()
                .retry(RetryStrategy.fixed(Duration.ofSeconds(30)))
                .build();
        for (int i = 0; i < 4; i++) {
            LockClient client = tck().newClient();
            int index = i;
            CompletableFuture<Void> f = new CompletableFuture<>();
            done.add(f);
            Thread t = new Thread(
                    () -> {
                        try (LockHandle mine = client.lock(name, slowPolling).acquire(Duration.ofSeconds(60))) {
                            order.add(index);
                            f.complete(null);
                        } catch (Throwable e) {
                            f.completeExceptionally(e);
                        }
                    },
                    "tck-fair-" + i);
            t.start();
            Tck.awaitParked(t, Duration.ofSeconds(10));
        }
        h.release();
        for (CompletableFuture<Void> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertEquals(List.of(0, 1, 2, 3), order, "waiters from different clients were not served in arrival order");
    }

    /**
     * Rule NATIVE_WAIT: a release wakes a waiter whose poll interval is far longer than the wake-up bound, whatever
     * fairness it asked for.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("capabilities")
    @DisplayName("NATIVE_WAIT: a release wakes a waiter whose poll interval is far longer than the wake-up bound")
    default void nativeWait_releaseWakesWaiterWithoutPolling() throws Exception {
        requireCapability(Capability.NATIVE_WAIT);
        LockClient a = tck().newClient();
        String name = tck().name("notify");
        LockHandle h = Tck.mustAcquire(
                a.lock(name, LockOptions.builder().lease(Duration.ofSeconds(60)).build()));
        // first a waiter that asked for no fairness, then one that asked for the default: each must be woken
        LockHandle first = awaitWokenBy(h::release, "the holder's release", name, Fairness.NONE);
        awaitWokenBy(first::release, "the holder's release", name, Fairness.PREFERRED)
                .close();
    }

    /**
     * Rule NATIVE_WAIT: a forced release wakes a waiter whose poll interval is far longer than the wake-up bound.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("capabilities")
    @DisplayName("NATIVE_WAIT: a forced release wakes a waiter as a release does")
    default void nativeWait_forcedReleaseWakesAWaiter() throws Exception {
        requireCapability(Capability.NATIVE_WAIT);
        LockClient a = tck().newClient();
        LockClient admin = tck().newClient();
        String name = tck().name("notify-forced");
        Tck.mustAcquire(a.lock(name, LockOptions.builder().lease(Duration.ofSeconds(60)).build()));
        awaitWokenBy(() -> Tck.forceRelease(admin, name), "a forced release", name, Fairness.PREFERRED)
                .close();
    }

    /**
     * Starts a waiter for {@code name} on a new client that polls only every 60 s, ends the current grant with
     * {@code end} once the waiter waits, and returns the waiter's handle; fails if the waiter was not granted within
     * the wake-up bound (waiting at most 500 ms more before failing).
     */
    private LockHandle awaitWokenBy(Runnable end, String what, String name, Fairness fairness) throws Exception {
        LockClient b = tck().newClient();
        Duration wakeUp = tck().settings().wakeUp();
        LockOptions slowPolling = LockOptions.builder()
                .retry(RetryStrategy.fixed(Duration.ofSeconds(60)))
                .fairness(fairness)
                .build();
        CompletableFuture<LockHandle> got = b.lock(name, slowPolling).acquireAsync(Duration.ofSeconds(90));
        tck().awaitAskedTheStore(b);
        long ended = System.nanoTime();
        end.run();
        LockHandle mine;
        try {
            mine = got.get(wakeUp.plusMillis(500).toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            got.cancel(true);
            throw new AssertionError("a waiter (fairness " + fairness + ", poll interval 60 s) was not woken within "
                    + wakeUp.plusMillis(500).toMillis() + " ms of " + what + ": LockBackend.awaitChange (or the wait"
                    + " in LockBackend.acquire) did not return on the store's notification");
        }
        long took = System.nanoTime() - ended;
        assertTrue(
                took <= wakeUp.toNanos(),
                () -> "a waiter (fairness " + fairness + ") was woken " + Tck.millis(took) + " ms after " + what
                        + "; the wake-up bound is " + wakeUp.toMillis() + " ms (poll interval 60 s)");
        return mine;
    }

    /**
     * Rule SESSION_BOUND: a killed session is reported as SESSION_LOST and frees the lock.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("capabilities")
    @DisplayName("SESSION_BOUND: a killed session is reported as SESSION_LOST and frees the lock")
    default void sessionBound_killedSessionIsReportedAndFreesTheLock() throws Exception {
        requireCapability(Capability.SESSION_BOUND);
        LockClient b = tck().newClient();
        String name = tck().name("session");
        var backend = tck().newBackend();
        LockClient a = io.latchkey.Latchkey.client(backend);
        try {
            LockHandle h = Tck.mustAcquire(a.lock(name));
            tck().faults().killSession(backend);
            LockLoss loss = Tck.awaitLoss(h, Duration.ofSeconds(60), "its session was killed");
            assertEquals(LockLoss.Reason.SESSION_LOST, loss.reason(), () -> "loss was " + loss);
            Tck.mustAcquire(b.lock(name), tck().settings().slack().plusSeconds(30))
                    .close();
        } finally {
            a.close();
        }
    }

    /** Rule SURVIVES_SERVER_RESTART: a held lock is still held, with the same token, after the server restarts. */
    @Test
    @Tag("capabilities")
    @DisplayName("SURVIVES_SERVER_RESTART: a held lock is still held, with the same token, after the server restarts")
    default void survivesRestart_heldLockStaysHeld() {
        requireCapability(Capability.SURVIVES_SERVER_RESTART);
        LockClient a = tck().newClient();
        String name = tck().name("restart");
        try (LockHandle h = Tck.mustAcquire(
                a.lock(name, LockOptions.builder().lease(Duration.ofSeconds(60)).build()))) {
            tck().faults().restartServer();
            LockClient b = tck().newClient();
            Optional<LockInfo> info = b.inspect(name);
            assertTrue(info.isPresent(), "the lock was forgotten by the restart");
            assertEquals(h.fencingToken(), info.get().fencingToken());
            assertTrue(b.lock(name).tryAcquire().isEmpty(), "another client acquired the lock after the restart");
        }
    }
}

package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.Capability;
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
     * Rule NATIVE_WAIT: a release wakes a waiter whose poll interval is far longer than the wake-up bound.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("capabilities")
    @DisplayName("NATIVE_WAIT: a release wakes a waiter whose poll interval is far longer than the wake-up bound")
    default void nativeWait_releaseWakesWaiterWithoutPolling() throws Exception {
        requireCapability(Capability.NATIVE_WAIT);
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("notify");
        LockHandle h = Tck.mustAcquire(
                a.lock(name, LockOptions.builder().lease(Duration.ofSeconds(60)).build()));
        CompletableFuture<LockHandle> got = new CompletableFuture<>();
        LockOptions slowPolling = LockOptions.builder()
                .retry(RetryStrategy.fixed(Duration.ofSeconds(60)))
                .build();
        Thread waiter = new Thread(
                () -> {
                    try {
                        got.complete(b.lock(name, slowPolling).acquire(Duration.ofSeconds(90)));
                    } catch (Throwable e) {
                        got.completeExceptionally(e);
                    }
                },
                "tck-notified-waiter");
        waiter.start();
        Tck.awaitParked(waiter, Duration.ofSeconds(10));
        long released = System.nanoTime();
        h.release();
        LockHandle mine = got.get(75, TimeUnit.SECONDS);
        long took = System.nanoTime() - released;
        mine.close();
        assertTrue(
                took <= tck().settings().wakeUp().toNanos(),
                () -> "the waiter was woken " + Tck.millis(took)
                        + " ms after the release: the store's notification did not reach it (poll interval 60 s)");
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

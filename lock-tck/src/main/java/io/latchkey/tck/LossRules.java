package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockLostException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** §4.5 Loss is reported: lost() completes, before validUntil() when renewal fails, and isValid() turns false. */
public interface LossRules extends TckRules {

    /**
     * Rule §4.5 loss: an unrenewed lease is reported EXPIRED before validUntil().
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("loss")
    @DisplayName("§4.5 loss: an unrenewed lease is reported EXPIRED before validUntil()")
    default void loss_unrenewedLeaseIsReportedBeforeValidUntil() throws Exception {
        LockClient a = tck().newClient();
        LockHandle h = Tck.mustAcquire(a.lock(tck().name("expire"), Tck.expiring(tck())));
        Tck.mustBeBusy(tck().newClient().lock(h.name()), "its lease had not run out yet");
        CompletableFuture<Instant[]> seen = new CompletableFuture<>();
        h.onLost(loss -> seen.complete(new Instant[] {Instant.now(), h.validUntil()}));
        LockLoss loss = Tck.awaitLoss(h, Duration.ofMillis(timeout()), "its unrenewed lease ran out");
        assertEquals(LockLoss.Reason.EXPIRED, loss.reason());
        Instant[] at = seen.get(timeout(), TimeUnit.MILLISECONDS);
        assertTrue(at[0].isBefore(at[1]), () -> "lost() completed at " + at[0] + ", not before validUntil " + at[1]);
        assertFalse(h.isValid());
    }

    /**
     * Rule §4.5 loss: a forced release is reported to the holder as RELEASED_BY_ADMIN.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("loss")
    @DisplayName("§4.5 loss: a forced release is reported to the holder as RELEASED_BY_ADMIN")
    default void loss_forcedReleaseIsReportedToTheHolder() throws Exception {
        LockClient holder = tck().newClient();
        LockClient admin = tck().newClient();
        String name = tck().name("forced");
        LockHandle h = Tck.mustAcquire(holder.lock(name, Tck.renewing(tck())));
        boolean removed;
        try {
            removed = admin.forceRelease(name);
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("backend does not support forceRelease: " + e.getMessage());
            return;
        }
        assertTrue(removed, "forceRelease found no grant to remove");
        LockLoss loss = Tck.awaitLoss(h, Duration.ofMillis(timeout()), "an administrator force-released it");
        assertEquals(LockLoss.Reason.RELEASED_BY_ADMIN, loss.reason(), () -> "loss was " + loss);
        assertFalse(h.isValid());
        assertFalse(h.release(), "release() after a forced release said it still held the lock");
    }

    /**
     * Rule §4.5 loss: renewals failing during an outage are reported before validUntil().
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("loss")
    @DisplayName("§4.5 loss: renewals failing during an outage are reported before validUntil()")
    default void loss_outageIsReportedBeforeValidUntil() throws Exception {
        LockClient a = tck().newClient();
        LockHandle h = Tck.mustAcquire(a.lock(tck().name("outage"), Tck.renewing(tck())));
        CompletableFuture<Instant[]> seen = new CompletableFuture<>();
        h.onLost(loss -> seen.complete(new Instant[] {Instant.now(), h.validUntil()}));
        try (AutoCloseable outage = tck().faults().outage()) {
            LockLoss loss = Tck.awaitLoss(
                    h, Duration.ofMillis(timeout()), "the store was unreachable for longer than its lease");
            assertTrue(
                    loss.reason() == LockLoss.Reason.RENEWAL_FAILED || loss.reason() == LockLoss.Reason.SESSION_LOST,
                    () -> "loss was " + loss);
            Instant[] at = seen.get(timeout(), TimeUnit.MILLISECONDS);
            assertTrue(
                    at[0].isBefore(at[1]), () -> "lost() completed at " + at[0] + ", not before validUntil " + at[1]);
            assertFalse(h.isValid());
        }
    }

    /**
     * Rule §4.5 loss: closing the client reports CLIENT_CLOSED and frees the lock.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("loss")
    @DisplayName("§4.5 loss: closing the client reports CLIENT_CLOSED and frees the lock")
    default void loss_closingTheClientReportsClientClosed() throws Exception {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("closed");
        LockHandle h = Tck.mustAcquire(a.lock(name));
        Tck.mustBeBusy(b.lock(name), "its client was still open");
        a.close();
        LockLoss loss = Tck.awaitLoss(h, Duration.ofMillis(timeout()), "its client was closed");
        assertEquals(LockLoss.Reason.CLIENT_CLOSED, loss.reason());
        assertFalse(h.isValid());
        Tck.mustAcquire(b.lock(name), tck().settings().slack()).close();
    }

    /** Rule §4.5 loss: runExclusive interrupts its task when the lock is lost and throws LockLostException. */
    @Test
    @Tag("loss")
    @DisplayName("§4.5 loss: runExclusive interrupts its task when the lock is lost and throws LockLostException")
    default void loss_runExclusiveInterruptsTheTask() {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("exclusive");
        CountDownLatch never = new CountDownLatch(1);
        boolean[] interrupted = new boolean[1];
        LockLostException e = assertThrows(
                LockLostException.class,
                () -> a.lock(name, Tck.expiring(tck())).runExclusive(Duration.ofSeconds(5), () -> {
                    Tck.mustBeBusy(b.lock(name), "the task was running under it");
                    try {
                        never.await(timeout(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException ie) {
                        interrupted[0] = true;
                    }
                }));
        assertTrue(interrupted[0], "the task was not interrupted");
        assertEquals(LockLoss.Reason.EXPIRED, e.loss().reason());
        assertFalse(Thread.currentThread().isInterrupted(), "runExclusive left the caller's thread interrupted");
    }

    private long timeout() {
        return tck().settings()
                .shortLease()
                .multipliedBy(2)
                .plus(tck().settings().slack())
                .toMillis();
    }
}

package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** §4.3 Lease: a grant expires by itself if its holder dies; renewal keeps it; validity is conservative. */
public interface LeaseRules extends TckRules {

    /** Rule §4.3 lease: a crashed holder's grant frees within lease (or session timeout) plus slack. */
    @Test
    @Tag("lease")
    @DisplayName("§4.3 lease: a crashed holder's grant frees within lease (or session timeout) plus slack")
    default void lease_crashedHoldersGrantFreesWithinLeasePlusSlack() {
        LockClient holder = tck().newClient();
        LockClient waiter = tck().newClient();
        String name = tck().name("orphan");
        Duration lease = tck().settings().shortLease();
        LockHandle h = Tck.mustAcquire(holder.lock(name, Tck.renewing(tck())));
        long crashedAt = System.nanoTime();
        tck().crash(holder);
        Duration bound = lease.plus(tck().settings().slack());
        LockHandle next = Tck.mustAcquire(
                waiter.lock(name, Tck.fastRetry(LockOptions.defaults())), bound.plus(Duration.ofSeconds(1)));
        long took = System.nanoTime() - crashedAt;
        next.close();
        assertTrue(
                took <= bound.toNanos(),
                () -> "the crashed holder's grant (token " + h.fencingToken() + ") freed only after " + Tck.millis(took)
                        + " ms; lease " + lease + " + slack allows " + bound.toMillis() + " ms");
    }

    /** Rule §4.3 lease: auto-renewal keeps a lock held for several leases. */
    @Test
    @Tag("lease")
    @DisplayName("§4.3 lease: auto-renewal keeps a lock held for several leases")
    default void lease_autoRenewalKeepsLockPastItsLease() {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("renewed");
        Duration lease = tck().settings().shortLease();
        try (LockHandle h = Tck.mustAcquire(a.lock(name, Tck.renewing(tck())))) {
            Tck.await(lease.multipliedBy(4)).during(lease.multipliedBy(3)).until(() -> {
                Optional<LockHandle> other = b.lock(name).tryAcquire();
                other.ifPresent(LockHandle::close);
                return other.isEmpty() && h.isValid();
            });
            assertFalse(h.lost().toCompletableFuture().isDone(), "a renewed lock reported a loss");
        }
    }

    /** Rule §4.3 lease: renew() extends the grant beyond its original lease. */
    @Test
    @Tag("lease")
    @DisplayName("§4.3 lease: renew() extends the grant beyond its original lease")
    default void lease_manualRenewExtendsTheGrant() {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("manual");
        Duration lease = tck().settings().shortLease();
        try (LockHandle h = Tck.mustAcquire(a.lock(name, Tck.expiring(tck())))) {
            Instant original = h.validUntil();
            assertTrue(h.renew(lease.multipliedBy(4)), "renew() of a held grant returned false");
            assertTrue(h.validUntil().isAfter(original), "validUntil did not move forward after renew()");
            Tck.await(lease.multipliedBy(3)).until(() -> Instant.now().isAfter(original.plusMillis(100)));
            assertTrue(
                    b.lock(name).tryAcquire().isEmpty(),
                    "another client acquired after the original lease although it was renewed");
            assertTrue(h.isValid());
        }
    }

    /**
     * Rule §4.3 lease: maxHold ends a renewed hold with EXPIRED and frees the lock.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("lease")
    @DisplayName("§4.3 lease: maxHold ends a renewed hold with EXPIRED and frees the lock")
    default void lease_maxHoldEndsTheHold() throws Exception {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("maxhold");
        Duration lease = tck().settings().shortLease();
        Duration maxHold = lease.multipliedBy(2);
        LockHandle h = Tck.mustAcquire(
                a.lock(name, Tck.renewing(tck()).toBuilder().maxHold(maxHold).build()));
        LockLoss loss =
                Tck.awaitLoss(h, maxHold.plus(tck().settings().slack()), "its max hold of " + maxHold + " ran out");
        assertEquals(LockLoss.Reason.EXPIRED, loss.reason(), () -> "loss was " + loss);
        assertFalse(h.isValid());
        Tck.mustAcquire(b.lock(name), tck().settings().slack()).close();
    }

    /** Rule §4.3 lease: validity is conservative: never more than the lease from the request. */
    @Test
    @Tag("lease")
    @DisplayName("§4.3 lease: validity is conservative: never more than the lease from the request")
    default void lease_validityIsConservative() {
        LockClient a = tck().newClient();
        Duration lease = Duration.ofSeconds(30);
        Instant before = Instant.now();
        try (LockHandle h = Tck.mustAcquire(a.lock(
                tck().name("validity"), LockOptions.builder().lease(lease).build()))) {
            Instant after = Instant.now();
            assertTrue(
                    h.remaining().compareTo(lease) <= 0,
                    () -> "remaining " + h.remaining() + " exceeds the lease " + lease);
            assertTrue(
                    !h.validUntil().isAfter(after.plus(lease).plusMillis(5)),
                    () -> "validUntil " + h.validUntil() + " is later than the lease allows (" + after.plus(lease)
                            + ")");
            assertTrue(h.validUntil().isAfter(before), "validUntil is in the past for a fresh grant");
        }
    }
}

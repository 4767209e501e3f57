package io.latchkey.tck;

import static io.latchkey.tck.SpiCalls.endGrantByStore;
import static io.latchkey.tck.SpiCalls.granted;
import static io.latchkey.tck.SpiCalls.request;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.Capability;
import io.latchkey.Latchkey;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.TimeSource;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
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
        Tck.mustBeBusy(waiter.lock(name), "the holder had not crashed yet");
        long crashedAt = System.nanoTime();
        tck().crash(holder);
        Duration bound = lease.plus(tck().settings().slack());
        LockHandle next = Tck.mustAcquire(
                waiter.lock(name, Tck.fastRetry(LockOptions.defaults())),
                bound.plus(Duration.ofSeconds(1)),
                () -> "the crashed holder's grant (token " + h.fencingToken() + ") was still held "
                        + bound.plusSeconds(1).toMillis() + " ms after the crash: LockBackend.tryAcquire kept answering"
                        + " busy (a grant nobody renews must end with its lease, or its session)");
        long took = System.nanoTime() - crashedAt;
        next.close();
        assertTrue(
                took <= bound.toNanos(),
                () -> "the crashed holder's grant (token " + h.fencingToken() + ") freed only after " + Tck.millis(took)
                        + " ms; lease " + lease + " + slack allows " + bound.toMillis() + " ms");
    }

    /**
     * Rule §4.3 lease: auto-renewal keeps a lock held for several leases. The client holds eight renewing locks taken
     * together, so that their renewals fall due together: a backend that renews in batches
     * ({@code LockBackend.renewAll}) gets them in one call, and a batch that renews only some of its grants, or
     * reports renewed what the store did not extend, loses the others within the rule's three leases.
     */
    @Test
    @Tag("lease")
    @DisplayName("§4.3 lease: auto-renewal keeps a lock held for several leases")
    default void lease_autoRenewalKeepsLockPastItsLease() {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("renewed");
        Duration lease = tck().settings().shortLease();
        java.util.List<LockHandle> together = new java.util.ArrayList<>();
        try (LockHandle h = Tck.mustAcquire(a.lock(name, Tck.renewing(tck())))) {
            for (int i = 1; i < 8; i++) {
                together.add(Tck.mustAcquire(a.lock(name + "/" + i, Tck.renewing(tck()))));
            }
            Tck.staysTrue(
                    lease.multipliedBy(3),
                    () -> {
                        Optional<LockHandle> other = b.lock(name).tryAcquire();
                        other.ifPresent(LockHandle::close);
                        return other.isEmpty() && h.isValid() && together.stream().allMatch(LockHandle::isValid);
                    },
                    "within three leases, another client took lock '" + name + "' or one of the eight renewed locks"
                            + " turned invalid, although their holder renewed them: the store did not extend it, or"
                            + " the renewal failed");
            assertFalse(h.lost().toCompletableFuture().isDone(), "a renewed lock reported a loss");
            for (LockHandle t : together) {
                assertFalse(
                        t.lost().toCompletableFuture().isDone(),
                        () -> "lock '" + t.name() + "', renewed with seven others taken at the same time, reported a"
                                + " loss: " + t.lost().toCompletableFuture().getNow(null));
                assertTrue(
                        b.lock(t.name()).tryAcquire().isEmpty(),
                        () -> "another client took lock '" + t.name() + "' after three leases although its holder"
                                + " renewed it with seven others and still holds it: the store did not extend it");
            }
        } finally {
            together.forEach(LockHandle::close);
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
        Tck.mustBeBusy(b.lock(name), "the hold had not reached its max hold yet");
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
            Tck.mustBeBusy(tck().newClient().lock(h.name()), "a validity was reported for it");
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

    /**
     * Rule §4.3 lease: a grant excludes every other client for its whole validity (the store keeps it at least that
     * long: no lease rounded down to the store's granularity).
     */
    @Test
    @Tag("lease")
    @DisplayName("§4.3 lease: a grant excludes every other client for its whole validity, however the lease is rounded")
    default void lease_grantExcludesOthersForItsWholeValidity() {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("whole-validity");
        // not a whole number of seconds: a store that rounds leases down frees the lock before the holder expects
        Duration lease = tck().settings().shortLease().plusMillis(600);
        LockHandle h = Tck.mustAcquire(
                a.lock(name, LockOptions.builder().lease(lease).autoRenew(false).build()));
        AtomicReference<String> overlap = new AtomicReference<>();
        Tck.await(lease.plus(tck().settings().slack())).until(() -> {
            Optional<LockHandle> other = b.lock(name).tryAcquire();
            Duration left = h.remaining();
            boolean stillValid = h.isValid();
            other.ifPresent(LockHandle::close);
            if (other.isPresent() && stillValid) {
                overlap.set("another client was granted '" + name + "' while the holder's grant (lease "
                        + lease.toMillis() + " ms, token " + h.fencingToken() + ") was valid for " + left.toMillis()
                        + " ms more: the store ended the grant before the validity LockBackend.tryAcquire reported"
                        + " (a lease rounded down to the store's granularity?)");
            }
            return overlap.get() != null || !stillValid;
        });
        assertNull(overlap.get(), overlap::get);
    }

    /** Rule §4.3 lease: renew does not revive a grant that the store already ended, even if no one took the lock. */
    @Test
    @Tag("lease")
    @DisplayName("§4.3 lease: renew() does not revive a grant the store ended, even when no one took the lock since")
    default void lease_renewDoesNotReviveAnEndedGrant() {
        LockBackend a = tck().newBackend();
        LockBackend b = tck().newBackend();
        String name = tck().name("revive");
        Duration lease = tck().settings().shortLease();
        Grant g = granted(a.tryAcquire(request(name, "owner-a", lease)), name, "LockBackend.tryAcquire");
        endGrantByStore(tck(), a, name);
        SpiCalls.awaitEnded(tck(), name, g, lease);
        RenewResult r = a.renew(g, Duration.ofSeconds(30));
        assertFalse(
                r.held(),
                () -> "LockBackend.renew revived the grant of '" + name + "' (token " + g.fencingToken()
                        + ") after the store had ended it: renew must act only on a grant the store still holds");
        AcquireResult other = b.tryAcquire(request(name, "owner-b", lease));
        assertInstanceOf(
                Grant.class,
                other,
                () -> "LockBackend.tryAcquire: '" + name + "' stayed busy after its grant ended and a renew was refused");
        b.release((Grant) other);
    }

    /**
     * Rule §4.3 lease: the validity a backend reports counts from before the request was sent, never from the reply.
     */
    @Test
    @Tag("lease")
    @DisplayName("§4.3 lease: a reported validity counts from before the request, never from the reply's arrival")
    default void lease_reportedValidityCountsFromTheRequestStart() {
        LockBackend a = tck().newBackend();
        LockBackend other = tck().newBackend(); // a client never asks for a name it holds: the core's local gate
        TimeSource time = a.timeSource();
        String name = tck().name("from-request");
        Duration lease = Duration.ofSeconds(30);
        // The backend takes its start just before sending, after the rule's own start: its validity lies in
        // [call start, call return] + lease. From the request it is near the start, from the reply near the
        // return: the midpoint tells them apart. A pause before the backend's start (GC) moves it past the midpoint
        // once, so the rule fails only if three calls in a row count from their reply.
        String acquired = null;
        String renewed = null;
        for (int attempt = 0; attempt < 3 && (acquired == null || renewed == null); attempt++) {
            long start = time.nanoTime();
            Grant g = granted(a.tryAcquire(request(name, "owner-a", lease)), name, "LockBackend.tryAcquire");
            long end = time.nanoTime();
            assertFalse(
                    other.tryAcquire(request(name, "owner-b", lease)) instanceof Grant,
                    "LockBackend.tryAcquire granted a held lock to another client's owner");
            acquired = fromRequest(g.validUntilNanos(), start, end, lease) ? "ok" : acquired;
            long renewStart = time.nanoTime();
            RenewResult r = a.renew(g, lease);
            long renewEnd = time.nanoTime();
            assertTrue(r.held(), "LockBackend.renew of a held grant said it was not held");
            renewed = fromRequest(r.validUntilNanos(), renewStart, renewEnd, lease) ? "ok" : renewed;
            assertTrue(a.release(g), "LockBackend.release of a held grant returned false");
        }
        assertNotNull(
                acquired,
                "LockBackend.tryAcquire reported, three times, a validity later than the call's midpoint + lease: count"
                        + " it from before the request was sent, not from the reply");
        assertNotNull(
                renewed,
                "LockBackend.renew reported, three times, a validity later than the call's midpoint + lease: count it"
                        + " from before the request was sent, not from the reply");
    }

    /** Whether a validity counts from the first half of the call [start, end] (Long.MAX_VALUE: bound to a session). */
    private static boolean fromRequest(long validUntil, long start, long end, Duration lease) {
        return validUntil == Long.MAX_VALUE || validUntil - lease.toNanos() - (start + (end - start) / 2) <= 0;
    }

    /**
     * Rule §4.3 lease: the core bounds a handle's validity by its own request start + lease, whatever the backend
     * reports (the TCK adds an hour to every validity the backend under test reports).
     */
    @Test
    @Tag("lease")
    @DisplayName("§4.3 lease: the core bounds validity itself when a backend overstates it")
    default void lease_coreBoundsAnOverstatedValidity() {
        LockClient lying = tck().closeAtEnd(Latchkey.client(new OverstatingBackend(tck().newBackend()), "tck"));
        Duration lease = Duration.ofSeconds(30);
        try (LockHandle h = Tck.mustAcquire(lying.lock(
                tck().name("overstated"),
                LockOptions.builder().lease(lease).autoRenew(false).build()))) {
            Tck.mustBeBusy(tck().newClient().lock(h.name()), "it was granted (with an overstated validity)");
            assertTrue(
                    h.remaining().compareTo(lease) <= 0,
                    () -> "the handle believes it holds the lock for " + h.remaining() + " on a lease of " + lease
                            + ": the core kept the hour the backend added; it must clamp to its own request start"
                            + " + lease - drift");
            assertTrue(h.renew(), "renew() of a held grant returned false");
            assertTrue(
                    h.remaining().compareTo(lease) <= 0,
                    () -> "after renew() the handle believes it holds the lock for " + h.remaining()
                            + " on a lease of " + lease + ": the core kept an overstated renewal");
        }
    }
}

package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static io.latchkey.tck.SpiCalls.endGrantByStore;
import static io.latchkey.tck.SpiCalls.granted;
import static io.latchkey.tck.SpiCalls.request;

import io.latchkey.Capability;
import io.latchkey.Fairness;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.LockBackend;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * §4.4 Ownership: only the grant that acquired can renew or release, a stale grant never touches a newer
 * owner's, and release is idempotent. Stated at the SPI level, where the core cannot mask a backend's fault.
 */
public interface OwnershipRules extends TckRules {

    /** Rule §4.4 ownership: a stale grant's release and renew never touch the new owner's grant. */
    @Test
    @Tag("ownership")
    @DisplayName("§4.4 ownership: a stale grant's release and renew never touch the new owner's grant")
    default void ownership_staleReleaseAndRenewDoNotTouchNewOwner() {
        LockBackend a = tck().newBackend();
        LockBackend b = tck().newBackend();
        LockBackend c = tck().newBackend();
        String name = tck().name("stale");
        Duration lease = tck().settings().shortLease();
        Grant stale = granted(a.tryAcquire(request(name, "owner-a", lease)), name, "LockBackend.tryAcquire");
        endGrantByStore(tck(), a, name);
        AtomicReference<Grant> fresh = new AtomicReference<>();
        Tck.await(lease.plus(tck().settings().slack())).until(() -> {
            AcquireResult r = b.tryAcquire(request(name, "owner-b", Duration.ofSeconds(30)));
            if (r instanceof Grant g) {
                fresh.set(g);
                return true;
            }
            return false;
        });
        Grant newer = fresh.get();
        assertTrue(newer.fencingToken() > stale.fencingToken(), "the new grant's token did not increase");

        assertFalse(a.release(stale), "release() of a stale grant returned true");
        assertFalse(a.renew(stale, Duration.ofSeconds(30)).held(), "renew() of a stale grant said it still held");
        AcquireResult third = c.tryAcquire(request(name, "owner-c", lease));
        assertFalse(
                third instanceof Grant,
                "a third owner acquired: the stale release or renew removed the new owner's grant");
        Optional<LockInfo> info = c.inspect(name);
        assertTrue(info.isPresent(), "the new owner's grant vanished");
        assertEquals("owner-b", info.get().owner());
        assertEquals(newer.fencingToken(), info.get().fencingToken());
        assertTrue(b.release(newer), "the new owner could not release its own grant");
    }

    /**
     * Rule §4.4 ownership: an owner's stale grant never touches the same owner's newer grant (release and renew match
     * the token, not only the owner).
     */
    @Test
    @Tag("ownership")
    @DisplayName("§4.4 ownership: an owner's stale grant never releases or renews the same owner's newer grant")
    default void ownership_staleGrantOfTheSameOwnerDoesNotTouchItsNewerGrant() {
        LockBackend a = tck().newBackend();
        String name = tck().name("same-owner");
        Duration lease = tck().settings().shortLease();
        Grant stale = granted(a.tryAcquire(request(name, "owner-a", lease)), name, "LockBackend.tryAcquire");
        endGrantByStore(tck(), a, name);
        // while the grant is valid, the same owner is given that grant again (idempotent retry): wait until it ended
        SpiCalls.awaitEnded(tck(), name, stale, lease);
        Grant newer = granted(
                a.tryAcquire(request(name, "owner-a", Duration.ofSeconds(30))), name, "LockBackend.tryAcquire");
        assertTrue(
                newer.fencingToken() > stale.fencingToken(),
                () -> "LockBackend.tryAcquire: the owner's grant after its ended grant has token " + newer.fencingToken()
                        + ", not above the ended grant's " + stale.fencingToken() + ": every grant needs a new token");
        assertFalse(
                a.release(stale),
                () -> "LockBackend.release: the owner's stale grant (token " + stale.fencingToken()
                        + ") released its newer grant (token " + newer.fencingToken()
                        + "): release must match the token, not only the owner");
        assertFalse(
                a.renew(stale, Duration.ofSeconds(30)).held(),
                () -> "LockBackend.renew: the owner's stale grant (token " + stale.fencingToken()
                        + ") renewed: renew must match the token, not only the owner");
        Optional<LockInfo> info = tck().newBackend().inspect(name);
        assertTrue(
                info.isPresent() && info.get().fencingToken() == newer.fencingToken(),
                () -> "LockBackend.release: the newer grant (token " + newer.fencingToken()
                        + ") is gone after the stale grant's release; inspect shows " + info);
        assertTrue(a.release(newer), "LockBackend.release: the owner could not release its own current grant");
    }

    /** Rule §4.4 ownership: release is idempotent: true once, then false, close() after it is harmless. */
    @Test
    @Tag("ownership")
    @DisplayName("§4.4 ownership: release is idempotent: true once, then false, close() after it is harmless")
    default void ownership_releaseIsIdempotent() {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("idempotent");
        LockHandle h = Tck.mustAcquire(a.lock(name));
        assertTrue(h.release(), "first release() returned false");
        assertFalse(h.release(), "second release() returned true");
        h.close();
        assertFalse(h.isValid());
        try (LockHandle other = Tck.mustAcquire(b.lock(name))) {
            h.close();
            assertFalse(h.release());
            assertTrue(other.isValid(), "closing a released handle affected the next owner");
            assertTrue(a.lock(name).tryAcquire().isEmpty());
        }
    }

    /**
     * Rule §4.4 ownership: a handle whose grant ended cannot renew.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("ownership")
    @DisplayName("§4.4 ownership: a handle whose grant ended cannot renew")
    default void ownership_lostHandleCannotRenew() throws Exception {
        LockClient a = tck().newClient();
        String name = tck().name("norenew");
        LockHandle h = Tck.mustAcquire(a.lock(name, Tck.expiring(tck())));
        Tck.mustBeBusy(tck().newClient().lock(name), "its lease had not run out yet");
        Tck.awaitLoss(h, tck().settings().shortLease().plus(tck().settings().slack()), "its unrenewed lease ran out");
        assertFalse(h.renew(), "renew() of a lost handle returned true");
        assertFalse(h.release(), "release() of a lost handle returned true");
    }
}

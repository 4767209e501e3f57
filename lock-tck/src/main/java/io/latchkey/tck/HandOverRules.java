package io.latchkey.tck;

import static io.latchkey.tck.SpiCalls.granted;
import static io.latchkey.tck.SpiCalls.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockInfo;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.HandOver;
import io.latchkey.spi.LockBackend;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * §4.4 Ownership, for {@code LockBackend.handOver}: the release the core uses when another thread of the same client
 * waits, which a backend may turn into the next owner's grant in the same store step. Whatever a backend does with it
 * (the SPI's default only releases), the held grant ends, the next grant's token is greater, and a grant the store no
 * longer holds is never handed over. Stated at the SPI level, where the core cannot mask a backend's fault.
 */
public interface HandOverRules extends TckRules {

    /**
     * Rule §4.4 ownership: a hand-over ends the held grant, and the grant it makes (if any) is the next owner's, with a
     * greater token, and excludes everyone else.
     */
    @Test
    @Tag("ownership")
    @DisplayName("§4.4 ownership: a hand-over ends the held grant; the grant it makes is the next owner's, with a"
            + " greater token, and excludes everyone else")
    default void handOver_endsTheHeldGrantAndGrantsOnlyTheNextOwner() {
        LockBackend a = tck().newBackend();
        LockBackend b = tck().newBackend();
        String name = tck().name("hand-over");
        Duration lease = Duration.ofSeconds(30);
        Grant held = granted(a.tryAcquire(request(name, "owner-held", lease)), name, "LockBackend.tryAcquire");
        assertFalse(
                b.tryAcquire(request(name, "owner-other", lease)) instanceof Grant,
                "another client acquired a held lock before the hand-over");

        HandOver r = a.handOver(held, request(name, "owner-next", lease));
        long end = a.timeSource().nanoTime();

        assertTrue(r.held(), "LockBackend.handOver of a held grant answered that the store did not hold it");
        Grant next = r.next();
        if (next == null) { // released only (the SPI's default): the lock is free for anyone
            Grant other = granted(
                    b.tryAcquire(request(name, "owner-other", lease)),
                    name,
                    "LockBackend.tryAcquire after a hand-over that only released");
            assertTrue(
                    other.fencingToken() > held.fencingToken(),
                    () -> "the grant after a hand-over that released has token " + other.fencingToken()
                            + ", not greater than the released grant's " + held.fencingToken());
            assertFalse(a.release(held), "release() of the grant a hand-over ended returned true");
            assertTrue(b.release(other), "the next holder could not release its own grant");
            return;
        }
        assertEquals(name, next.name(), "the handed-over grant is for another name");
        assertEquals("owner-next", next.owner(), "the handed-over grant is for another owner");
        assertTrue(
                next.fencingToken() > held.fencingToken(),
                () -> "the handed-over grant has token " + next.fencingToken() + ", not greater than the held grant's "
                        + held.fencingToken() + ": a fenced resource cannot tell the two holders apart");
        assertTrue(
                next.validUntilNanos() - end > 0, "the handed-over grant was already invalid when the hand-over returned");
        // bounded by the call's end, not its midpoint (LeaseRules samples tryAcquire three times for that finer
        // bound): one call's first-time costs may fall before the store reads its clock, and a correct backend must
        // never fail here; what this catches is a validity the store does not keep (an overstated lease)
        assertTrue(
                next.validUntilNanos() == Long.MAX_VALUE || next.validUntilNanos() - lease.toNanos() - end <= 0,
                () -> "LockBackend.handOver reported a validity " + Tck.millis(next.validUntilNanos() - end)
                        + " ms after the call returned, more than the lease of " + lease.toMillis() + " ms: count it"
                        + " from before the request was sent");
        AcquireResult third = b.tryAcquire(request(name, "owner-other", lease));
        assertFalse(third instanceof Grant, "another client acquired the lock a hand-over had just granted");
        Optional<LockInfo> info = b.inspect(name);
        assertTrue(info.isPresent(), "inspect() shows no holder after a hand-over granted the lock");
        assertEquals("owner-next", info.get().owner(), "inspect() shows another holder than the hand-over's");
        assertEquals(next.fencingToken(), info.get().fencingToken(), "inspect() shows another token");
        assertFalse(a.release(held), "release() of the grant a hand-over ended returned true");
        assertFalse(a.renew(held, lease).held(), "renew() of the grant a hand-over ended said it still held");
        assertTrue(a.release(next), "the next owner could not release the grant handed over to it");
        Grant after = granted(
                b.tryAcquire(request(name, "owner-other", lease)), name, "LockBackend.tryAcquire after the release");
        assertTrue(after.fencingToken() > next.fencingToken(), "the token did not increase after the handed-over grant");
        assertTrue(b.release(after));
    }

    /**
     * Rule §4.4 ownership: a hand-over of a grant the store no longer holds changes nothing: the lock's new holder
     * keeps it, and no grant is made.
     */
    @Test
    @Tag("ownership")
    @DisplayName("§4.4 ownership: a hand-over of a grant the store no longer holds changes nothing and grants nothing")
    default void handOver_ofAGrantNoLongerHeldChangesNothing() {
        LockBackend a = tck().newBackend();
        LockBackend b = tck().newBackend();
        String name = tck().name("stale-hand-over");
        Duration lease = Duration.ofSeconds(30);
        Grant stale = granted(a.tryAcquire(request(name, "owner-stale", lease)), name, "LockBackend.tryAcquire");
        assertTrue(a.release(stale), "release() of a held grant returned false");
        Grant newer = granted(b.tryAcquire(request(name, "owner-newer", lease)), name, "LockBackend.tryAcquire");

        HandOver r = a.handOver(stale, request(name, "owner-next", lease));

        assertNull(
                r.next(),
                () -> "a hand-over of a released grant made a grant for " + r.next().owner() + " (token "
                        + r.next().fencingToken() + ") out of another owner's lock");
        assertFalse(r.held(), "a hand-over of a released grant answered that the store held it");
        Optional<LockInfo> info = b.inspect(name);
        assertTrue(info.isPresent(), "the new holder's grant vanished after a stale hand-over");
        assertEquals("owner-newer", info.get().owner(), "a stale hand-over changed the lock's holder");
        assertEquals(newer.fencingToken(), info.get().fencingToken(), "a stale hand-over changed the lock's token");
        assertInstanceOf(
                io.latchkey.spi.Busy.class,
                a.tryAcquire(request(name, "owner-next", lease)),
                "the next owner of the stale hand-over acquired the new holder's lock");
        assertTrue(b.release(newer), "the new holder could not release its grant after a stale hand-over");
    }
}

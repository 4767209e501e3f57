package io.latchkey.core;

import io.latchkey.LockOptions;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.HandOver;
import java.time.Duration;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;

/*
 * A hand-off inside one client in one store step (LockBackend.handOver), both of its sides.
 *
 * Releasing side: a holder of an exclusive lock that releases while another thread of this client waits at the
 * name's gate asks the store to end its grant and, in the same step, grant a new owner id of this client, with the
 * releaser's lease. A backend that cannot (the SPI's default) just releases, and nothing changes from a plain release.
 * A grant the store made is parked in the gate before the permit is given back, with the client clock's reading from
 * before the call: the new grant's validity counts from there, as a tryAcquire's counts from before its request. A
 * call that fails may have lost only its reply, with the lock already left to the new owner id: that id is abandoned
 * (CoreLockClient.abandonInBackground), as an acquisition abandons a request it saw no answer to.
 *
 * Entering side: whoever takes the gate's permit next takes the parked grant in one atomic step (LocalGates.Gate) and
 * makes it its own (AcquireLoop.hold, as a grant the store returned), without asking the store; a grant whose lease differs from the one it asked for,
 * or whose validity ran out while parked, it gives back and then contends as usual. A grant nobody takes (the waiter
 * gave up) is given back by the gate's last user (LocalGates.unuse). The permit is what orders the two sides: the
 * releaser parks before it leaves, the next one takes after it enters, so exactly one thread ever holds the grant.
 */
@NullMarked
final class HandOffs {
    /** A grant made for the gate's next user, with the lease asked for and the clock's reading before the call. */
    record Parked(Grant grant, Duration lease, long startNanos) {}

    private HandOffs() {}

    /** Ends {@code h}'s grant in the store, handing it over when a thread of this client waits; what release answers. */
    static boolean releaseOrHandOver(CoreLockClient c, HeldLock h, LocalGates.Gate gate) {
        Grant held = h.grant;
        if (held.kind().type() != GrantKind.Type.EXCLUSIVE || !gate.hasWaiters()) {
            return c.backend.release(held);
        }
        AcquireRequest next =
                new AcquireRequest(held.name(), c.owners.next(), h.options.lease(), h.options.fairness());
        long start = c.time.nanoTime();
        HandOver r;
        try {
            r = c.backend.handOver(held, next);
        } catch (RuntimeException | Error e) {
            // the reply may be what was lost: a committed hand-over left the lock to `next`, whom nobody will hold.
            // Asked again with that owner, the store returns such a grant (the same-owner retry), which is released
            c.abandonInBackground(next);
            throw e;
        }
        Grant made = r.next();
        if (made != null) {
            AcquireLoop.checkGrant(c, next, made); // a grant for another owner or name: given back, and refused
            gate.park(new Parked(made, next.lease(), start));
        }
        return r.held();
    }

    /** A parked grant this acquisition can hold: the grant, its validity as the core bounds it, and the clock's readings. */
    record Adoptable(Grant grant, long validUntilNanos, long startNanos, long takenNanos) {}

    /**
     * The grant parked in the gate this acquisition just entered, if it can hold it; null if there is none, or if it
     * could not be used (then given back, and the acquisition contends as usual). A grant taken here is either
     * returned or given back, also when reading the clock fails.
     */
    static @Nullable Adoptable take(CoreLockClient c, LocalGates.Gate gate, GrantKind kind, LockOptions o) {
        Parked p = gate.takeParked();
        if (p == null) {
            return null;
        }
        Grant g = p.grant();
        try {
            if (kind.type() != GrantKind.Type.EXCLUSIVE || !p.lease().equals(o.lease())) {
                c.releaseQuietly(g); // made with another holder's options: this one asks for its own
                return null;
            }
            long now = c.time.nanoTime();
            long validUntil = ValidityClamp.clamp(g.validUntilNanos(), p.startNanos(), o.lease());
            if (now - validUntil >= 0) {
                c.releaseQuietly(g); // parked for longer than its lease (this thread was descheduled): already over
                return null;
            }
            return new Adoptable(g, validUntil, p.startNanos(), now);
        } catch (RuntimeException | Error e) {
            c.releaseQuietly(g);
            throw e;
        }
    }
}

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
 * before the call: the new grant's validity counts from there, as a tryAcquire's counts from before its request.
 *
 * Entering side: whoever takes the gate's permit next takes the parked grant in one atomic step (LocalGates.Gate) and
 * makes it its own (AcquireLoop.hold), without asking the store; a grant whose lease differs from the one it asked for,
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
        HandOver r = c.backend.handOver(held, next);
        Grant made = r.next();
        if (made != null) {
            AcquireLoop.checkGrant(c, next, made); // a grant for another owner or name: given back, and refused
            gate.park(new Parked(made, next.lease(), start));
        }
        return r.held();
    }

    /**
     * The grant parked in the gate this acquisition just entered, made its own; null if there is none, or if it could
     * not be used (given back: the acquisition then contends as usual).
     */
    static @Nullable CoreHandle adopt(
            CoreLockClient c,
            LocalGates.Gate gate,
            GrantKind kind,
            LockOptions o,
            String key,
            @Nullable Thread reentrant,
            long begin) {
        Parked p = gate.takeParked();
        if (p == null) {
            return null;
        }
        Grant g = p.grant();
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
        long waited = (c.systemClock ? now : System.nanoTime()) - begin;
        return AcquireLoop.hold(c, g, validUntil, o, gate, key, p.startNanos(), now, reentrant, waited);
    }
}

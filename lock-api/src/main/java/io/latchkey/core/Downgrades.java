package io.latchkey.core;

import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.Reentrancy;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;

/*
 * Downgrade: a held write grant becomes a read grant in one store step (LockBackend.downgrade).
 *
 * Order. The caller's write handle is marked released, then its HeldLock retires (ACTIVE -> RELEASED without a
 * store release: its timer is cancelled, so no renewal of the write grant races the store step, and it leaves its
 * gate). Then the store converts the grant, and the read grant is registered and armed like any new grant. A
 * refusal before the store step (re-entered grant) changes nothing. If the store step fails, the write grant is
 * released in the store, best effort, and the failure is thrown: the caller holds nothing.
 */
final class Downgrades {
    private Downgrades() {}

    static CoreHandle downgrade(CoreLockClient c, String name, LockOptions o, LockHandle writeHandle) {
        if (!(writeHandle instanceof CoreHandle handle)
                || handle.held().client != c
                || handle.held().grant.kind().type() != GrantKind.Type.WRITE
                || !handle.held().name().equals(name)) {
            throw new IllegalArgumentException(
                    "downgrade needs a write grant of read-write lock " + LockNames.quote(name)
                            + " acquired through this client (" + c.backend() + "), was " + writeHandle);
        }
        c.checkOpen(name);
        HeldLock write = handle.held();
        if (!handle.markReleased()) {
            throw new IllegalStateException("cannot downgrade write lock " + LockNames.quote(name) + " on "
                    + c.backend() + ": this handle was released");
        }
        boolean retired;
        try {
            retired = write.retire();
        } catch (IllegalStateException reentered) {
            handle.unmarkReleased();
            throw reentered;
        }
        if (!retired) {
            throw new IllegalStateException("cannot downgrade write lock " + LockNames.quote(name) + " on "
                    + c.backend() + ": its grant (token " + write.grant.fencingToken() + ") was released or lost");
        }
        Thread reentrant = o.reentrancy() == Reentrancy.PER_THREAD ? Thread.currentThread() : null;
        String owner = c.owners.next();
        String key = GrantKeys.of(name, GrantKind.READ, owner, reentrant);
        LocalGates.Gate gate = c.gates.use(key);
        boolean entered = false;
        boolean granted = false;
        try {
            entered = gate.tryEnterNow();
            if (!entered) {
                throw new IllegalStateException("cannot downgrade write lock " + LockNames.quote(name) + " on "
                        + c.backend() + ": this thread already holds a read grant of it");
            }
            AcquireRequest request = new AcquireRequest(name, owner, o.lease(), o.fairness(), GrantKind.READ);
            long startNanos = c.time.nanoTime();
            Grant g;
            try {
                g = c.backend.downgrade(write.grant, request);
            } catch (RuntimeException | Error e) {
                c.releaseQuietly(write.grant);
                throw e;
            }
            if (g == null) {
                throw new IllegalStateException("cannot downgrade write lock " + LockNames.quote(name) + " on "
                        + c.backend() + ": the store no longer holds its grant (token " + write.grant.fencingToken()
                        + "); it was lost, and nothing is held");
            }
            AcquireLoop.checkGrant(c, request, g);
            long validUntil = ValidityClamp.clamp(g.validUntilNanos(), startNanos, request.lease());
            granted = true; // from here the read grant's HeldLock owns the gate
            return AcquireLoop.hold(c, g, validUntil, o, gate, key, startNanos, c.time.nanoTime(), reentrant, 0);
        } finally {
            if (!granted) {
                if (entered) {
                    gate.leave();
                }
                c.gates.unuse(gate);
            }
        }
    }
}

package io.latchkey.core;

import io.latchkey.LockLoss;
import io.latchkey.spi.GrantLossSink;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;

/*
 * Losses the store reports by itself (session expiry, dead connection, virtual clock): the GrantLossSink a client
 * binds to its backend. It finds the grant through the client's local gates, which are also its registry of held
 * grants.
 *
 * Concurrency design. A backend may learn of a loss between returning a grant and the core registering it. The sink
 * records the loss first and then looks for the grant; registered() runs after the grant was added and then looks for
 * a record. Whatever the interleaving, one side sees the other (marking lost twice is harmless), so no early loss is
 * dropped. A record nobody claims is dropped after EARLY_LOSS_TTL, on the next report.
 */
@NullMarked
final class StoreLosses implements GrantLossSink {
    private static final long EARLY_LOSS_TTL_NANOS = TimeUnit.SECONDS.toNanos(30);

    private record EarlyLoss(LockLoss.Reason reason, String detail, @Nullable Throwable cause, long atNanos) {}

    private final LocalGates gates;
    /** Losses reported for grants not registered yet, by name and owner. */
    private final ConcurrentHashMap<String, EarlyLoss> earlyLosses = new ConcurrentHashMap<>();

    StoreLosses(LocalGates gates) {
        this.gates = gates;
    }

    /** A grant was just registered: a loss the store reported before that ends it now. */
    void registered(HeldLock h) {
        EarlyLoss early = earlyLosses.isEmpty() ? null : earlyLosses.remove(key(h.name(), h.grant.owner()));
        if (early != null) {
            h.markLost(early.reason, early.detail, early.cause);
        }
    }

    @Override
    public void grantLost(String name, String owner, LockLoss.Reason reason, String detail, @Nullable Throwable cause) {
        String key = key(name, owner);
        long now = System.nanoTime();
        earlyLosses.values().removeIf(e -> now - e.atNanos() > EARLY_LOSS_TTL_NANOS);
        earlyLosses.put(key, new EarlyLoss(reason, detail, cause, now));
        HeldLock h = gates.holder(name);
        if (h == null || !h.ownedBy(owner)) {
            h = gates.holder(GrantKeys.permits(name, owner));
        }
        if (h == null || !h.ownedBy(owner)) {
            h = findByOwner(name, owner); // a read or write grant: rare enough to look through them all
        }
        if (h != null && h.ownedBy(owner)) {
            earlyLosses.remove(key);
            h.markLost(reason, detail, cause);
        }
    }

    @Override
    public void allLost(LockLoss.Reason reason, String detail, @Nullable Throwable cause) {
        for (HeldLock h : gates.holders()) {
            h.markLost(reason, detail, cause);
        }
    }

    private @Nullable HeldLock findByOwner(String name, String owner) {
        for (HeldLock h : gates.holders()) {
            if (h.ownedBy(owner) && h.name().equals(name)) {
                return h;
            }
        }
        return null;
    }

    private static String key(String name, String owner) {
        return name + '\u0000' + owner;
    }
}

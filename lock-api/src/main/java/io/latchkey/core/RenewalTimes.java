package io.latchkey.core;

import io.latchkey.LockOptions;
import io.latchkey.spi.Deadlines;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;

/*
 * When a Watchdog renews and for how long: pure arithmetic on monotonic times, kept apart from the watchdog's state
 * and its lock. No object per grant: every method is static.
 */
@NullMarked
final class RenewalTimes {
    private RenewalTimes() {}

    /**
     * When to renew next: after the renew interval, or after a third of the validity the store actually granted if it
     * granted less than the lease (a backend may, e.g. capped by a session timeout or a client lease). A grant within
     * two drift allowances of the lease counts as full (ValidityClamp takes one off every grant), so that a full lease
     * renews on the configured interval, not 1 % sooner. A {@code batched} grant's renewal is put on the batcher's
     * grid (RenewalBatcher.gridStep), up to an eighth of the interval early, with the others due in that step.
     */
    static long next(LockOptions options, long from, long validUntil, boolean batched) {
        long interval = options.renewInterval().toNanos();
        if (validUntil != Long.MAX_VALUE) {
            long lease = options.lease().toNanos();
            long granted = validUntil - from;
            // within two drift allowances of the lease, the grant is the full lease (the clamp took one off); below
            // that the store granted less (a session or client lease caps it) and the renewal comes at a third of
            // what it granted. Adding the lease's allowance back to a short grant would renew after it ended: a 5 min
            // lease capped at 2 s by etcd's client lease renewed at 1.6 s, after its loss deadline.
            if (granted < lease - 2 * ValidityClamp.driftNanos(lease)) {
                interval = Math.min(interval, Math.max(TimeUnit.MILLISECONDS.toNanos(1), granted / 3));
            }
        }
        long next = Deadlines.saturatedAdd(from, interval);
        if (batched && next != Long.MAX_VALUE) {
            next -= Math.floorMod(next, RenewalBatcher.gridStep(interval));
        }
        return next;
    }

    /** How soon a renewal the store could not make is tried again. */
    static long retryIntervalNanos(LockOptions options) {
        return Math.max(TimeUnit.MILLISECONDS.toNanos(10), options.renewInterval().toNanos() / 4);
    }

    /**
     * The lease to ask for, cut so the grant never outlives acquisition + maxHold ({@code maxHoldEndNanos},
     * Long.MAX_VALUE for none); null once that is reached.
     */
    static @Nullable Duration capByMaxHold(Duration lease, long now, long maxHoldEndNanos) {
        if (maxHoldEndNanos == Long.MAX_VALUE) {
            return lease;
        }
        long left = maxHoldEndNanos - now;
        if (left <= TimeUnit.MILLISECONDS.toNanos(1)) {
            return null;
        }
        return left < lease.toNanos() ? Duration.ofNanos(left) : lease;
    }

    /** Whether capByMaxHold cut the lease: it returns its argument itself when it does not. */
    @SuppressWarnings("ReferenceEquality") // identity is the point: an equal lease the caller passed is not a cut
    static boolean isCut(Duration asked, Duration lease) {
        return asked != lease;
    }
}

package io.latchkey.core;

import io.latchkey.spi.Deadlines;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/*
 * The core's own bound on how long a grant is valid (docs/design.md §4.3): never later than the core's clock at the
 * start of the request that proved it, plus the lease asked for, minus a drift allowance (1 % of the lease + 2 ms,
 * Redlock's). A backend computes validity itself (it knows the store's granularity, its session, its quorum), and
 * the core takes the earlier of the two: a backend that overstates validity (counted from the reply's arrival, a
 * lease rounded up, a bug) cannot make a holder believe it holds a lock the store has given to someone else.
 *
 * The one case where the core does not know when the request started: a wait inside the store
 * (LockBackend.acquire with a wait), where the store made the grant at an instant only the backend saw. There the
 * bound counts from the call's return: weaker, but it still caps a lie at one round trip.
 */
final class ValidityClamp {
    private static final long DRIFT_FLOOR_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private ValidityClamp() {}

    /** The drift allowance for {@code lease}: 1 % of it plus 2 ms. */
    static long driftNanos(long leaseNanos) {
        return leaseNanos / 100 + DRIFT_FLOOR_NANOS;
    }

    /** The latest validity the core accepts for a grant of {@code lease} proven by a request started at {@code startNanos}. */
    static long bound(long startNanos, Duration lease) {
        long leaseNanos = lease.toNanos(); // a lease is checked to fit in a long (Durations.requireLease)
        return Deadlines.saturatedAdd(startNanos, leaseNanos - driftNanos(leaseNanos));
    }

    /** {@code reported}, or the bound if that is earlier (Long.MAX_VALUE, "no deadline", is never earlier). */
    static long clamp(long reported, long startNanos, Duration lease) {
        long bound = bound(startNanos, lease);
        if (bound == Long.MAX_VALUE) {
            return reported; // a lease of centuries: nothing to bound
        }
        return reported == Long.MAX_VALUE || reported - bound > 0 ? bound : reported;
    }
}

package io.latchkey;

import java.time.Duration;

/**
 * Argument checks for durations, shared by the public API and the core so that every entry point gives the
 * same message for the same mistake.
 */
public final class Durations {
    /** The longest lease or hold the API accepts. */
    public static final Duration MAX_LEASE = Duration.ofDays(365);
    /** The longest wait the API accepts: what fits in a signed 64-bit count of nanoseconds. */
    public static final Duration MAX_WAIT = Duration.ofNanos(Long.MAX_VALUE);

    private Durations() {}

    /**
     * A lease-like duration: positive and at most {@link #MAX_LEASE}.
     *
     * @param d the duration to check
     * @param what its name in the error message, e.g. {@code lease}
     * @return {@code d}
     * @throws IllegalArgumentException if {@code d} is null, zero, negative or longer than {@link #MAX_LEASE}
     */
    public static Duration requireLease(Duration d, String what) {
        requirePositive(d, what);
        if (d.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException(what + " must be at most " + MAX_LEASE.toDays() + " days, was " + d);
        }
        return d;
    }

    /**
     * A strictly positive duration that fits in 64-bit nanoseconds.
     *
     * @param d the duration to check
     * @param what its name in the error message
     * @return {@code d}
     * @throws IllegalArgumentException if {@code d} is null, zero, negative or too long for 64-bit nanoseconds
     */
    public static Duration requirePositive(Duration d, String what) {
        if (d == null) {
            throw new IllegalArgumentException(what + " must not be null; pass a positive java.time.Duration");
        }
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + d);
        }
        requireFitsNanos(d, what);
        return d;
    }

    /**
     * A wait: zero (try once) or positive, and small enough to count in 64-bit nanoseconds.
     *
     * @param d the duration to check
     * @param what its name in the error message, e.g. {@code wait}
     * @return {@code d}
     * @throws IllegalArgumentException if {@code d} is null, negative or too long for 64-bit nanoseconds
     */
    public static Duration requireWait(Duration d, String what) {
        if (d == null) {
            throw new IllegalArgumentException(what + " must not be null; pass Duration.ZERO to try once");
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + " must be zero or positive, was " + d);
        }
        requireFitsNanos(d, what);
        return d;
    }

    private static void requireFitsNanos(Duration d, String what) {
        if (d.compareTo(MAX_WAIT) > 0) {
            throw new IllegalArgumentException(
                    what + " overflows: at most " + MAX_WAIT + " (about 292 years) is allowed, was " + d);
        }
    }
}

package io.latchkey.spi;

import java.time.Duration;

/**
 * Deadline arithmetic on {@link System#nanoTime()}-style clocks, written once. A deadline is {@code now +
 * wait}; a wait so long that the sum overflows (for example {@code Duration.ofNanos(Long.MAX_VALUE)}, "wait
 * forever") saturates to {@link Long#MAX_VALUE} instead of wrapping into the past. Stateless.
 */
public final class Deadlines {
    private Deadlines() {}

    /**
     * {@code a + b}, or {@link Long#MAX_VALUE} if that overflows (the deadline is as good as never).
     *
     * @param a a {@code System.nanoTime()} reading or a deadline
     * @param b nanoseconds to add, not negative
     * @return the sum, or {@link Long#MAX_VALUE}
     */
    public static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /**
     * The deadline {@code wait} after {@code nowNanos}; saturating. {@code wait} must not be negative.
     *
     * @param nowNanos the current {@code System.nanoTime()}
     * @param wait the time to add
     * @return the deadline in nanoseconds
     */
    public static long after(long nowNanos, Duration wait) {
        if (wait.isNegative()) {
            throw new IllegalArgumentException("wait must not be negative, was " + wait);
        }
        long nanos;
        try {
            nanos = wait.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
        return saturatedAdd(nowNanos, nanos);
    }

    /**
     * Nanoseconds left until the deadline, never negative.
     *
     * @param deadlineNanos the deadline
     * @param nowNanos the current {@code System.nanoTime()}
     * @return the nanoseconds left, zero once passed
     */
    public static long remaining(long deadlineNanos, long nowNanos) {
        return Math.max(0L, deadlineNanos - nowNanos);
    }
}

package io.latchkey.spi;

import java.time.Clock;
import java.time.Instant;

/**
 * The clock the core uses for a backend's grants: a monotonic nanosecond counter for validity, and a wall
 * clock for display. Backends use the system clock; the {@code mem:} backend can use a virtual clock so that
 * tests expire leases deterministically.
 */
public interface TimeSource {

    /**
     * Monotonic nanoseconds, comparable only with other values of the same source (as {@link System#nanoTime()}).
     *
     * @return the current monotonic reading
     */
    long nanoTime();

    /**
     * The current instant, for display only ({@code acquiredAt}, {@code validUntil}, {@code LockLoss.at},
     * {@code LockInfo}). The core never reads it to decide anything, and not at all while acquiring, renewing
     * or reporting a loss, except for {@code LockLoss.at}, which falls back to the system clock (or
     * {@link Instant#EPOCH}) if this one throws; a wall clock that fails never delays a loss report.
     *
     * @return the current instant
     */
    Instant now();

    /**
     * The system's monotonic and wall clocks.
     *
     * @return the system time source
     */
    static TimeSource system() {
        return SystemTimeSource.INSTANCE;
    }
}

final class SystemTimeSource implements TimeSource {
    static final SystemTimeSource INSTANCE = new SystemTimeSource();
    private static final Clock UTC = Clock.systemUTC();

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Instant now() {
        return UTC.instant();
    }

    @Override
    public String toString() {
        return "TimeSource.system()";
    }
}

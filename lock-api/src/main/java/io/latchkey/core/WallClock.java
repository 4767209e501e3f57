package io.latchkey.core;

import io.latchkey.spi.TimeSource;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Wall-clock readings, for display only. Validity, renewal and loss are judged on the monotonic clock; an
 * Instant is only ever shown to people (acquiredAt, validUntil, LockLoss.at, LockInfo). A wall clock can fail
 * (a clock-faking tool threw InternalError from inside loss reporting), and a display value must never stop a
 * loss from being reported, so a reading on a path that must not fail goes through here.
 */
public final class WallClock {
    private static final Logger log = LoggerFactory.getLogger(WallClock.class);

    private WallClock() {}

    /** The time source's wall clock, or empty if reading it failed, whatever it threw. */
    public static Optional<Instant> read(TimeSource time) {
        try {
            return Optional.ofNullable(time.now());
        } catch (Throwable e) { // NOPMD: display only; any failure means "no reading"
            log.debug("The wall clock of {} could not be read; showing another time instead", time, e);
            return Optional.empty();
        }
    }

    /**
     * For a display value that must exist: the time source's wall clock, else the system's, else
     * {@link Instant#EPOCH} (which says plainly that no clock could be read).
     */
    static Instant forDisplay(TimeSource time) {
        return read(time).or(() -> read(TimeSource.system())).orElse(Instant.EPOCH);
    }
}

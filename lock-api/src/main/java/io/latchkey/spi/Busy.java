package io.latchkey.spi;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Another owner holds the lock.
 *
 * @param holder       the holder's owner id if the store said, else {@code null}
 * @param holderToken  the holder's fencing token if known, else -1
 * @param retryAfter   how long the holder's grant has left if the store said (a waiter need not poll
 *                     before then), else {@code null}
 */
public record Busy(
        @Nullable String holder, long holderToken, @Nullable Duration retryAfter) implements AcquireResult {
    /** Busy, with nothing known about the holder. */
    public static final Busy UNKNOWN = new Busy(null, -1, null);
}

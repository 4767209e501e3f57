package io.latchkey.spi;

import io.latchkey.LockLoss;
import org.jspecify.annotations.Nullable;

/**
 * The answer to a renewal.
 *
 * @param held            false if the store no longer holds this grant
 * @param validUntilNanos the new validity end (backend's {@link TimeSource}) when held
 * @param reason          when not held: the reason if the backend knows it, else {@code null} and the core
 *                        infers it (before the grant's validity ran out: {@code RELEASED_BY_ADMIN}; after:
 *                        {@code EXPIRED})
 */
public record RenewResult(boolean held, long validUntilNanos, LockLoss.@Nullable Reason reason) {
    private static final RenewResult NOT_HELD = new RenewResult(false, 0, null);

    /**
     * The store renewed the grant.
     *
     * @param validUntilNanos the new validity end, in the backend's {@link TimeSource#nanoTime()}
     * @return the result
     */
    public static RenewResult renewed(long validUntilNanos) {
        return new RenewResult(true, validUntilNanos, null);
    }

    /**
     * The store no longer holds the grant; the core infers why.
     *
     * @return the result
     */
    public static RenewResult notHeld() {
        return NOT_HELD;
    }

    /**
     * The store no longer holds the grant, for this reason.
     *
     * @param reason the reason, or {@code null} for the core to infer
     * @return the result
     */
    public static RenewResult notHeld(LockLoss.@Nullable Reason reason) {
        return new RenewResult(false, 0, reason);
    }
}

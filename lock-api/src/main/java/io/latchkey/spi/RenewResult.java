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

    public static RenewResult renewed(long validUntilNanos) {
        return new RenewResult(true, validUntilNanos, null);
    }

    public static RenewResult notHeld() {
        return NOT_HELD;
    }

    public static RenewResult notHeld(LockLoss.@Nullable Reason reason) {
        return new RenewResult(false, 0, reason);
    }
}

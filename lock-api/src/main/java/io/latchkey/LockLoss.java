package io.latchkey;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Why and when a held lock stopped being held, as delivered by {@link LockHandle#lost()}.
 *
 * @param name   the lock's name
 * @param token  the fencing token of the grant that was lost
 * @param reason the cause
 * @param at     when the loss was detected (wall clock, for display only; if the backend's clock could not be
 *               read, the system clock's reading, or {@link Instant#EPOCH} if neither could be read)
 * @param detail a human-readable explanation
 * @param cause  the underlying error, if any (the last failed renewal; or whatever was thrown inside the
 *               watchdog, an {@link Error} included, which ends the grant at once as {@code RENEWAL_FAILED}),
 *               else {@code null}
 */
public record LockLoss(
        String name,
        long token,
        Reason reason,
        Instant at,
        String detail,
        @Nullable Throwable cause) {

    /** The cause of a loss. */
    public enum Reason {
        /** The lease ran out without being renewed (auto-renew off, or max hold reached). */
        EXPIRED,
        /** Renewal could not reach the store, or the store refused it, before validity ran out. */
        RENEWAL_FAILED,
        /** The session or connection that bound the grant ended (session-bound stores). */
        SESSION_LOST,
        /** The grant was removed from the store by someone else while it was still valid (forced release). */
        RELEASED_BY_ADMIN,
        /** The owning {@link LockClient} was closed while the lock was held. */
        CLIENT_CLOSED
    }

    /**
     * Checks that no component but {@code cause} is null.
     *
     * @param name the lock's name
     * @param token the fencing token of the grant that was lost
     * @param reason the cause
     * @param at when the loss was detected
     * @param detail a human-readable explanation
     * @param cause the underlying error, or {@code null}
     */
    public LockLoss {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(detail, "detail");
    }

    /**
     * The underlying error, if there was one.
     *
     * @return the underlying error, or empty
     */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(cause);
    }

    @Override
    public String toString() {
        return "LockLoss[lock '" + name + "', token " + token + ", " + reason + " at " + at + ": " + detail + "]";
    }
}

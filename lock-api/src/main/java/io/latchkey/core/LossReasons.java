package io.latchkey.core;

import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.StoreErrors;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;

/*
 * Why a Watchdog ends a grant, in the words a LockLoss carries: its validity ran out (EXPIRED at max hold or without
 * auto-renew, else RENEWAL_FAILED with the last renewal's failure), or the watchdog itself failed. Pure: the watchdog
 * passes what it knows under its state lock, and nothing here reads a clock or a grant. No object per grant.
 */
@NullMarked
final class LossReasons {
    private LossReasons() {}

    /** Why a grant is lost: the reason, the detail for the LockLoss and the log, and the failure behind it, if any. */
    record Loss(LockLoss.Reason reason, String detail, @Nullable Throwable cause) {}

    /**
     * The loss of a grant whose validity ran out. {@code maxHoldReached}: the last renewal was cut to max hold, or
     * max hold (within the guard) has passed; {@code lastRenewalFailure}: why the last renewal failed, null if none.
     */
    static Loss overdue(LockOptions options, boolean maxHoldReached, @Nullable Throwable lastRenewalFailure) {
        if (!options.autoRenew() || maxHoldReached) {
            return new Loss(
                    LockLoss.Reason.EXPIRED,
                    maxHoldReached
                            ? "max hold of " + options.maxHold().orElseThrow() + " reached"
                            : "lease of " + options.lease() + " ran out (auto-renew is off)",
                    null);
        }
        return new Loss(
                LockLoss.Reason.RENEWAL_FAILED,
                lastRenewalFailure == null
                        ? "no renewal succeeded before the lease ran out"
                        : "renewals failed until the lease ran out: " + describe(lastRenewalFailure),
                lastRenewalFailure);
    }

    /** The detail of a grant ended at once because the watchdog failed ({@code where}: which part of it). */
    static String watchdogFailed(String where, Throwable failure) {
        return where + " failed with " + describe(failure)
                + "; the lock is reported lost at once rather than when its validity ends";
    }

    /** A failure on one line, for a loss detail: its type and its message, with any password removed. */
    private static String describe(Throwable t) {
        String message = t.getMessage();
        return t.getClass().getSimpleName()
                + (message == null || message.isBlank() ? "" : ": " + StoreErrors.oneLine(Redaction.redact(message)));
    }
}

package io.latchkey.recipes;

import io.latchkey.LockLoss;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Why a term ended, as passed to {@link ElectionListener#onRevoked(Term, Revocation)}.
 *
 * @param reason what ended it
 * @param loss   the lock's loss report when the reason is {@link Reason#LOST}, else {@code null}
 */
public record Revocation(Reason reason, @Nullable LockLoss loss) {

    /** What ended a term. */
    public enum Reason {
        /** The lock was lost: renewal failed, the session ended, or an operator force-released it. */
        LOST,
        /** This instance stepped down with {@link Elector#relinquish()}. */
        RELINQUISHED,
        /** The elector (or its client) was closed. */
        CLOSED
    }

    /**
     * Checks that a reason is given.
     *
     * @param reason what ended the term
     * @param loss the loss report for {@link Reason#LOST}, else {@code null}
     */
    public Revocation {
        Objects.requireNonNull(reason, "reason");
    }

    /**
     * The loss report, for a {@link Reason#LOST} revocation.
     *
     * @return the loss report, or empty for the other reasons
     */
    public Optional<LockLoss> lossReport() {
        return Optional.ofNullable(loss);
    }
}

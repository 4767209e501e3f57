package io.latchkey;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The grants of a {@link MultiLock}: one {@link LockHandle} per name, held together. Valid while every part is;
 * the loss of one part does not release the others (the holder decides: {@link #release()} frees them all).
 * Thread-safe.
 */
public interface MultiLockHandle extends AutoCloseable {

    /**
     * The parts, in canonical order.
     *
     * @return one handle per part
     */
    List<LockHandle> handles();

    /**
     * Each part's fencing token, by name, in canonical order.
     *
     * @return the fencing tokens by lock name
     */
    Map<String, Long> fencingTokens();

    /**
     * True while every part is valid: none released, none lost, none run out.
     *
     * @return whether every part is still held and valid
     */
    boolean isValid();

    /**
     * The earliest of the parts' {@link LockHandle#validUntil()}: until then all of them are guaranteed.
     *
     * @return the earliest validity of the parts
     */
    Instant validUntil();

    /**
     * How much of the guaranteed validity of all parts is left.
     *
     * @return the validity left, never negative
     */
    Duration remaining();

    /**
     * Completes with the first part's loss; never completes if all are released normally.
     *
     * @return a stage completed with the first loss of a part
     */
    CompletionStage<LockLoss> lost();

    /**
     * Runs the listener at the first part's loss (at once if a part is already lost). Must not block.
     *
     * @param listener receives the first part's loss; must not block
     */
    void onLost(Consumer<? super LockLoss> listener);

    /**
     * Releases every part, in reverse canonical order. Idempotent.
     *
     * @return true if this call released every part; false if any part had already been released or lost
     * @throws BackendUnavailableException if the store could not be reached for some part; every other part is
     *                                     still released, and the unreachable one expires by its lease
     */
    boolean release();

    /** Releases like {@link #release()} but never throws. */
    @Override
    void close();
}

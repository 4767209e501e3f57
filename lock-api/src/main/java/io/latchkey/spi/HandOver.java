package io.latchkey.spi;

import org.jspecify.annotations.Nullable;

/**
 * What {@link LockBackend#handOver} did with the grant it was given: released it, or turned it into the next owner's
 * grant in the same store step.
 *
 * @param held whether the store still held the grant it was asked to end (what {@link LockBackend#release} answers)
 * @param next the next owner's grant, made in the same step; {@code null} when the store only released (or held
 *             nothing), and the next owner must then contend as usual
 */
public record HandOver(boolean held, @Nullable Grant next) {
    private static final HandOver RELEASED = new HandOver(true, null);
    private static final HandOver NOT_HELD = new HandOver(false, null);

    /**
     * Checks that a grant was handed over only from a grant the store held.
     *
     * @param held whether the store held the grant
     * @param next the next owner's grant, or {@code null}
     */
    public HandOver {
        if (next != null && !held) {
            throw new IllegalArgumentException("a hand-over made a grant for " + next.owner()
                    + " out of a grant the store did not hold; a store that held nothing must change nothing");
        }
    }

    /**
     * The store only released (or found nothing to release).
     *
     * @param held whether the store held the grant
     * @return the result, shared
     */
    public static HandOver released(boolean held) {
        return held ? RELEASED : NOT_HELD;
    }

    /**
     * The store ended the held grant and made {@code next} in the same step.
     *
     * @param next the next owner's grant
     * @return the result
     */
    public static HandOver to(Grant next) {
        return new HandOver(true, next);
    }
}

package io.latchkey;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * One grant of a {@link DistributedLock}: proof that this client held the lock when it was acquired, and
 * the means to renew, watch and release it. Thread-safe; release from any thread.
 *
 * <h2>What a handle guarantees</h2>
 * <ul>
 *   <li>{@link #fencingToken()} is strictly greater than the token of every earlier grant of the same name.
 *       It is the only protection against a holder that was paused (GC, swap, VM freeze) past its lease and
 *       woke up believing it still holds the lock: pass the token to the protected resource and have it
 *       reject writes with an older token.</li>
 *   <li>While {@link #isValid()} is true, judged by a monotonic local clock and conservatively (the lease
 *       is counted from before the request was sent, minus drift), no other client holds the lock unless
 *       this process was paused.</li>
 *   <li>If the lock is lost (renewal failed, session lost, forced release, client closed), {@link #lost()}
 *       completes, no later than {@link #validUntil()} when the loss is due to failed renewals.</li>
 *   <li>{@link #release()} and {@link #renew()} act only on this grant: they never touch a later grant of
 *       the same name to another owner.</li>
 * </ul>
 *
 * <h2>What it does not guarantee</h2>
 * A lease lock is not a mutex across process pauses: if this process stops for longer than the remaining
 * validity, another client may acquire the lock while this code still runs. Use the fencing token.
 */
public interface LockHandle extends AutoCloseable {

    /**
     * The lock's name.
     *
     * @return the name of the lock this grant is for
     */
    String name();

    /**
     * The fencing token of this grant: strictly increasing per name across all grants.
     *
     * @return the token, greater than every earlier grant's token for the same name
     */
    long fencingToken();

    /**
     * The owner id this grant was made for: unique per acquisition, readable (client id and sequence).
     *
     * @return the owner id of this grant
     */
    String owner();

    /**
     * When the lock was acquired (wall clock, for display).
     *
     * @return the instant of acquisition, on the client's wall clock
     */
    Instant acquiredAt();

    /**
     * Until when the grant is guaranteed valid unless renewed, derived conservatively from a monotonic
     * clock and shown as an instant for convenience. Moves forward on each successful renewal.
     *
     * @return the instant until which the grant is valid without another renewal
     */
    Instant validUntil();

    /**
     * How much of the guaranteed validity is left; {@link Duration#ZERO} once it has run out or was lost.
     *
     * @return the validity left, never negative
     */
    Duration remaining();

    /**
     * True while the grant is held: not released, not lost, and validity not run out.
     *
     * @return whether the grant is still held and valid
     */
    boolean isValid();

    /**
     * Renews the lease for the lease duration of the lock's options.
     *
     * @return true if renewed; false if the grant was no longer held (then {@link #lost()} completes)
     * @throws BackendUnavailableException if the store could not be reached (the grant may still be held)
     */
    boolean renew();

    /**
     * Renews the lease for the given duration (positive, at most 365 days).
     *
     *
     * @param lease the new lease, counted from before the renewal's request
     * @return true if the store renewed the grant; false if it no longer holds it (the handle is then lost)
     * @see #renew()
     */
    boolean renew(Duration lease);

    /**
     * Releases the lock if this handle still holds it. Idempotent.
     *
     * @return true if this call released the grant; false if it had already been released or lost
     * @throws BackendUnavailableException if the store could not be reached; the grant then expires by its
     *                                     lease, and a later call may try again
     */
    boolean release();

    /**
     * Releases like {@link #release()} but never throws: a store failure is logged and the grant is left to
     * expire by its lease. Idempotent; for try-with-resources.
     */
    @Override
    void close();

    /**
     * Completes when this grant is lost; never completes if it is released normally.
     *
     * @return a stage completed with the loss, its reason and detail
     */
    CompletionStage<LockLoss> lost();

    /**
     * Runs the listener when the grant is lost (at once if it already has been). Listeners run on a core
     * thread and must not block.
     *
     * @param listener receives the loss; must not block
     */
    void onLost(Consumer<? super LockLoss> listener);
}

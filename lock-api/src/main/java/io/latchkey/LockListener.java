package io.latchkey;

import java.time.Duration;

/**
 * Receives lock events from a {@link LockClient}, so that metrics and logs can be attached without lock-api
 * depending on a metrics library. Every method has an empty default; implement what you need.
 *
 * <p>Listeners are called synchronously on the thread where the event happens (an acquiring thread, a core
 * renewal thread): they must be fast and must not block or throw. An exception thrown by a listener is
 * logged and otherwise ignored.
 */
public interface LockListener {

    /**
     * The lock was acquired after waiting {@code waited}.
     *
     * @param name the lock's name
     * @param fencingToken the grant's token
     * @param waited the time from the call to the grant
     */
    default void acquired(String name, long fencingToken, Duration waited) {}

    /**
     * An acquisition gave up (timeout, interruption or error) after {@code waited}.
     *
     * @param name the lock's name
     * @param waited the time from the call to giving up
     * @param reason why: a {@link LockTimeoutException}, an {@link InterruptedException} or a store error
     */
    default void acquireFailed(String name, Duration waited, Throwable reason) {}

    /**
     * The lock was released after being held for {@code held}.
     *
     * @param name the lock's name
     * @param fencingToken the released grant's token
     * @param held the time from the grant to the release
     */
    default void released(String name, long fencingToken, Duration held) {}

    /**
     * The lease was renewed.
     *
     * @param name the lock's name
     * @param fencingToken the grant's token
     */
    default void renewed(String name, long fencingToken) {}

    /**
     * A renewal could not reach the store ({@code reason}, e.g. a {@link BackendUnavailableException}). The lock is
     * still held until its validity runs out; the watchdog retries, and {@link #lost} follows if it never succeeds.
     * A renewal the store refuses because the grant is gone is a loss, not a failed renewal.
     *
     * @param name the lock's name
     * @param fencingToken the grant's token
     * @param reason the store's error
     */
    default void renewalFailed(String name, long fencingToken, Throwable reason) {}

    /**
     * The lock was lost.
     *
     * @param loss which grant was lost, why and when
     */
    default void lost(LockLoss loss) {}
}

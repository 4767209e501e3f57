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

    /** The lock was acquired after waiting {@code waited}. */
    default void acquired(String name, long fencingToken, Duration waited) {}

    /** An acquisition gave up (timeout, interruption or error) after {@code waited}. */
    default void acquireFailed(String name, Duration waited, Throwable reason) {}

    /** The lock was released after being held for {@code held}. */
    default void released(String name, long fencingToken, Duration held) {}

    /** The lease was renewed. */
    default void renewed(String name, long fencingToken) {}

    /**
     * A renewal could not reach the store ({@code reason}, e.g. a {@link BackendUnavailableException}). The lock is
     * still held until its validity runs out; the watchdog retries, and {@link #lost} follows if it never succeeds.
     * A renewal the store refuses because the grant is gone is a loss, not a failed renewal.
     */
    default void renewalFailed(String name, long fencingToken, Throwable reason) {}

    /** The lock was lost. */
    default void lost(LockLoss loss) {}
}

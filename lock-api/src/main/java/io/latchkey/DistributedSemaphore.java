package io.latchkey;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A counted semaphore in the store: at most {@link #permits()} permits are held at any instant, as the store
 * judges it, by all clients together. Obtain one with {@link LockClient#semaphore(String, int)}.
 *
 * <p>Each successful acquisition is one {@link LockHandle} for {@code n} permits, with the same lease, renewal,
 * loss signal and fencing story as an exclusive lock: its {@link LockHandle#fencingToken()} is greater than every
 * earlier grant's of this semaphore, and the permits come back when the handle is released or, if the holder
 * dies, when its lease runs out.
 *
 * <pre>{@code
 * DistributedSemaphore api = client.semaphore("partner-api", 5);   // at most 5 calls at once, fleet-wide
 * try (LockHandle permit = api.acquire(1, Duration.ofSeconds(2))) {
 *     callPartner(permit.fencingToken());
 * }
 * }</pre>
 *
 * <p>A semaphore and an exclusive lock with the same name are different things in the store. The permit count is
 * part of the semaphore's identity: opening the name with another count is an {@link IllegalArgumentException}
 * at the first store operation, not a silent resize.
 */
public interface DistributedSemaphore {

    /**
     * The semaphore's name.
     *
     * @return the name given to {@link LockClient#semaphore(String, int)}
     */
    String name();

    /**
     * The permit count this view was opened with.
     *
     * @return the semaphore's permit count
     */
    int permits();

    /**
     * The options each grant is made with.
     *
     * @return the options of each grant
     */
    LockOptions options();

    /**
     * One attempt for {@code n} permits, no waiting.
     *
     *
     * @param n the permits to take, 1 to {@link #permits()}
     * @return a handle for the {@code n} permits, or empty if they are not free
     * @throws IllegalArgumentException if {@code n} is not 1..{@link #permits()}, or the store knows this name
     *                                  with another permit count
     */
    Optional<LockHandle> tryAcquire(int n);

    /**
     * Waits up to {@code wait} for {@code n} permits; empty if they could not be had in time.
     *
     * @param n the permits to take, 1 to {@link #permits()}
     * @param wait how long to wait: zero (one attempt) or positive
     * @return a handle for the {@code n} permits, or empty if the wait ran out
     * @throws InterruptedException if the thread is interrupted while waiting; nothing is then held
     */
    Optional<LockHandle> tryAcquire(int n, Duration wait) throws InterruptedException;

    /**
     * Waits up to {@code wait} for {@code n} permits.
     *
     *
     * @param n the permits to take, 1 to {@link #permits()}
     * @param wait how long to wait: zero (one attempt) or positive
     * @return a handle for the {@code n} permits
     * @throws LockTimeoutException if they could not be had in time (the message says how many were free)
     * @throws InterruptedException if the thread is interrupted while waiting; nothing is then held
     */
    LockHandle acquire(int n, Duration wait) throws InterruptedException;

    /**
     * Waits until {@code n} permits are acquired or the thread is interrupted.
     *
     * @param n the permits to take, 1 to {@link #permits()}
     * @return a handle for the {@code n} permits
     * @throws InterruptedException if the thread is interrupted while waiting; nothing is then held
     */
    LockHandle acquire(int n) throws InterruptedException;

    /**
     * As {@link #acquire(int, Duration)}, on a core thread; cancelling the future gives up the wait.
     *
     * @param n the permits to take, 1 to {@link #permits()}
     * @param wait how long to wait: zero (one attempt) or positive
     * @return a future completed with the handle, or exceptionally when the wait runs out
     */
    CompletableFuture<LockHandle> acquireAsync(int n, Duration wait);

    /**
     * As {@link #tryAcquire(int)}, on a core thread.
     *
     * @param n the permits to take, 1 to {@link #permits()}
     * @return a future completed with the handle, or with empty if the permits are not free
     */
    CompletableFuture<Optional<LockHandle>> tryAcquireAsync(int n);

    /**
     * The permits no valid grant holds right now, as the store counts them (one store read).
     *
     * @return the free permits, 0 to {@link #permits()}
     */
    int availablePermits();
}

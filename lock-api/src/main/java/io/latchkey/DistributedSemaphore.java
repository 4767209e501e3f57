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

    /** The semaphore's name. */
    String name();

    /** The permit count this view was opened with. */
    int permits();

    /** The options each grant is made with. */
    LockOptions options();

    /**
     * One attempt for {@code n} permits, no waiting.
     *
     * @throws IllegalArgumentException if {@code n} is not 1..{@link #permits()}, or the store knows this name
     *                                  with another permit count
     */
    Optional<LockHandle> tryAcquire(int n);

    /** Waits up to {@code wait} for {@code n} permits; empty if they could not be had in time. */
    Optional<LockHandle> tryAcquire(int n, Duration wait) throws InterruptedException;

    /**
     * Waits up to {@code wait} for {@code n} permits.
     *
     * @throws LockTimeoutException if they could not be had in time (the message says how many were free)
     */
    LockHandle acquire(int n, Duration wait) throws InterruptedException;

    /** Waits until {@code n} permits are acquired or the thread is interrupted. */
    LockHandle acquire(int n) throws InterruptedException;

    /** As {@link #acquire(int, Duration)}, on a core thread; cancelling the future gives up the wait. */
    CompletableFuture<LockHandle> acquireAsync(int n, Duration wait);

    /** As {@link #tryAcquire(int)}, on a core thread. */
    CompletableFuture<Optional<LockHandle>> tryAcquireAsync(int n);

    /** The permits no valid grant holds right now, as the store counts them (one store read). */
    int availablePermits();
}

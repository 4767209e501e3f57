package io.latchkey;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

/**
 * A named lock in one store, as seen through one {@link LockClient}. Cheap to create and thread-safe; it
 * holds no resources until acquired. Every acquisition returns a {@link LockHandle} that must be released
 * (try-with-resources).
 *
 * <p>Waiting: inside one client, waiters for one name queue locally in FIFO order and only the head of the
 * queue contends in the store, so a release wakes one waiter rather than all. Blocking calls honour
 * interruption: an interrupted waiter stops waiting, holds nothing, and sees {@link InterruptedException}.
 *
 * <p>Exclusion is as strong as the backend's lease and the holder's pauses allow: see {@link LockHandle}
 * on fencing tokens.
 */
public interface DistributedLock {

    /** The lock's name. */
    String name();

    /** The options this lock was created with. */
    LockOptions options();

    /** One attempt, no waiting. Empty if the lock is held by someone else (or by this thread, when not reentrant). */
    Optional<LockHandle> tryAcquire();

    /**
     * Waits up to {@code wait} for the lock.
     *
     * @param wait zero (one attempt) or positive
     * @return the handle, or empty if the wait ran out
     */
    Optional<LockHandle> tryAcquire(Duration wait) throws InterruptedException;

    /**
     * Waits up to {@code wait} for the lock.
     *
     * @throws LockTimeoutException if the wait ran out; its message says who held the lock
     */
    LockHandle acquire(Duration wait) throws InterruptedException;

    /** Waits until the lock is acquired or the thread is interrupted. */
    LockHandle acquire() throws InterruptedException;

    /**
     * Acquires on a core thread. Cancelling the future stops the wait; a grant that arrives after
     * cancellation is released at once.
     */
    CompletableFuture<LockHandle> acquireAsync(Duration wait);

    /** As {@link #tryAcquire()}, on a core thread. */
    CompletableFuture<Optional<LockHandle>> tryAcquireAsync();

    /**
     * Acquires the lock (waiting up to {@code wait}), runs the task on the calling thread while holding it,
     * and releases it. If the lock is lost while the task runs, the task's thread is interrupted and, once
     * the task returns, {@link LockLostException} is thrown instead of returning its result.
     *
     * @throws LockTimeoutException if the lock was not acquired within {@code wait}; the task did not run
     * @throws LockLostException    if the lock was lost while the task ran
     */
    <T> T runExclusive(Duration wait, Function<? super LockHandle, ? extends T> task) throws InterruptedException;

    /** As {@link #runExclusive(Duration, Function)} for a task without a result. */
    void runExclusive(Duration wait, Runnable task) throws InterruptedException;

    /**
     * A {@link Lock} view for code written against {@code java.util.concurrent}: reentrant per thread,
     * {@code unlock()} by the locking thread only, no conditions. {@link Lock#lock()} waits without limit
     * and keeps the interrupt status; store failures surface as {@link LockException}.
     */
    Lock asJavaLock();
}

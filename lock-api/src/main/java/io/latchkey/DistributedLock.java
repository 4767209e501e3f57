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

    /**
     * The lock's name.
     *
     * @return the name given to {@link LockClient#lock(String)}
     */
    String name();

    /**
     * The options this lock was created with.
     *
     * @return the options every grant of this lock is made with
     */
    LockOptions options();

    /**
     * One attempt, no waiting. Empty if the lock is held by someone else (or by this thread, when not reentrant).
     *
     * @return the handle of the grant, or empty if the lock is busy
     */
    Optional<LockHandle> tryAcquire();

    /**
     * Waits up to {@code wait} for the lock.
     *
     *
     * @param wait zero (one attempt) or positive
     * @return the handle, or empty if the wait ran out
     * @throws InterruptedException if the thread is interrupted while waiting; nothing is then held
     */
    Optional<LockHandle> tryAcquire(Duration wait) throws InterruptedException;

    /**
     * Waits up to {@code wait} for the lock.
     *
     *
     * @param wait how long to wait: zero (one attempt) or positive
     * @return the handle of the grant
     * @throws LockTimeoutException if the wait ran out; its message says who held the lock
     * @throws InterruptedException if the thread is interrupted while waiting; nothing is then held
     */
    LockHandle acquire(Duration wait) throws InterruptedException;

    /**
     * Waits until the lock is acquired or the thread is interrupted.
     *
     * @return the handle of the grant
     * @throws InterruptedException if the thread is interrupted while waiting; nothing is then held
     */
    LockHandle acquire() throws InterruptedException;

    /**
     * Acquires on a core thread. Cancelling the future stops the wait; a grant that arrives after
     * cancellation is released at once.
     *
     * @param wait how long to wait: zero (one attempt) or positive
     * @return a future completed with the handle, or exceptionally with {@link LockTimeoutException} when the wait runs out or another {@link LockException}
     */
    CompletableFuture<LockHandle> acquireAsync(Duration wait);

    /**
     * As {@link #tryAcquire()}, on a core thread.
     *
     * @return a future completed with the handle, or with empty if the lock is busy
     */
    CompletableFuture<Optional<LockHandle>> tryAcquireAsync();

    /**
     * Acquires the lock (waiting up to {@code wait}), runs the task on the calling thread while holding it,
     * and releases it. If the lock is lost while the task runs, the task's thread is interrupted and, once
     * the task returns, {@link LockLostException} is thrown instead of returning its result.
     *
     *
     * @param <T> the task's result type
     * @param wait how long to wait for the lock: zero (one attempt) or positive
     * @param task runs while the lock is held; it receives the handle (for its fencing token)
     * @return what the task returned
     * @throws LockTimeoutException if the lock was not acquired within {@code wait}; the task did not run
     * @throws LockLostException    if the lock was lost while the task ran
     * @throws InterruptedException if the thread is interrupted while waiting for the lock
     */
    <T> T runExclusive(Duration wait, Function<? super LockHandle, ? extends T> task) throws InterruptedException;

    /**
     * As {@link #runExclusive(Duration, Function)} for a task without a result.
     *
     * @param wait how long to wait for the lock: zero (one attempt) or positive
     * @param task runs while the lock is held
     * @throws InterruptedException if the thread is interrupted while waiting for the lock
     */
    void runExclusive(Duration wait, Runnable task) throws InterruptedException;

    /**
     * A {@link Lock} view for code written against {@code java.util.concurrent}: reentrant per thread,
     * {@code unlock()} by the locking thread only, no conditions. {@link Lock#lock()} waits without limit
     * and keeps the interrupt status; store failures surface as {@link LockException}.
     *
     * @return a {@code Lock} backed by this distributed lock
     */
    Lock asJavaLock();
}

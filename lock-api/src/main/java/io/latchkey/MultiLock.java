package io.latchkey;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Several named locks taken together, from {@link LockClient#lockAll(String...)}: all of them or none.
 *
 * <p>The parts are always acquired in one canonical order, the names sorted by {@link String#compareTo} (UTF-16
 * code units), whatever order they were given in, so two callers whose sets overlap never wait for each other in a
 * cycle: no deadlock. One wait budget covers the whole set: if any part cannot be had within it, the parts already
 * taken are released in reverse order and the call fails as a single lock's would.
 */
public interface MultiLock {

    /**
     * The names in canonical (acquisition) order.
     *
     * @return the names, sorted into the order in which every client acquires them
     */
    List<String> names();

    /**
     * One attempt at each part, no waiting; empty (and nothing held) if any part is held by someone else.
     *
     * @return the combined handle, or empty if any part is busy
     */
    Optional<MultiLockHandle> tryAcquire();

    /**
     * Waits up to {@code wait} in total for every part.
     *
     *
     * @param wait the total wait for all parts: zero (one attempt each) or positive
     * @return the combined handle, or empty (nothing held) if the wait ran out
     * @throws InterruptedException if the thread is interrupted while waiting; nothing is then held
     */
    Optional<MultiLockHandle> tryAcquire(Duration wait) throws InterruptedException;

    /**
     * Waits up to {@code wait} in total for every part.
     *
     *
     * @param wait the total wait for all parts: zero (one attempt each) or positive
     * @return the combined handle
     * @throws LockTimeoutException if the wait ran out (nothing is held); its message names the part that could not
     *                              be had
     * @throws InterruptedException if the thread is interrupted while waiting; nothing is then held
     */
    MultiLockHandle acquire(Duration wait) throws InterruptedException;

    /**
     * Waits until every part is acquired or the thread is interrupted (then nothing is held).
     *
     * @return the combined handle
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    MultiLockHandle acquire() throws InterruptedException;
}

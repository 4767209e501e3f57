package io.latchkey;

/**
 * A read-write lock in the store: any number of readers, or one writer, at a time, as the store judges it.
 * Obtain one with {@link LockClient#readWriteLock(String)}.
 *
 * <p>Both sides are ordinary {@link DistributedLock}s (try, timed, blocking, async, {@code runExclusive},
 * {@code asJavaLock()}), and every grant is a {@link LockHandle} with its own lease, renewal and loss signal. One
 * fencing counter serves both sides: every grant's token, read or write, is greater than every earlier grant's of
 * this lock.
 *
 * <pre>{@code
 * DistributedReadWriteLock catalog = client.readWriteLock("catalog");
 * try (LockHandle read = catalog.readLock().acquire(Duration.ofSeconds(2))) {
 *     serveFromCache();                       // many readers at once
 * }
 * try (LockHandle write = catalog.writeLock().acquire(Duration.ofSeconds(10))) {
 *     rebuildCache(write.fencingToken());     // alone: readers wait
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>Writer preference.</b> Once a writer waits, new readers wait too, so a stream of readers cannot starve
 *       it. A writer that gives up stops holding readers back at once.</li>
 *   <li><b>No upgrade.</b> A thread that holds a read grant of this lock (through this client) and asks for its
 *       write lock gets an {@link IllegalStateException}: two readers upgrading at once would wait for each other
 *       forever. Release the read grant first.</li>
 *   <li>A read-write lock, an exclusive lock and a semaphore with the same name are different things in the
 *       store.</li>
 * </ul>
 */
public interface DistributedReadWriteLock {

    /**
     * The lock's name.
     *
     * @return the name given to {@link LockClient#readWriteLock(String)}
     */
    String name();

    /**
     * The options both sides are acquired with.
     *
     * @return the options of both sides
     */
    LockOptions options();

    /**
     * The shared side: held by any number of readers while no writer holds or waits.
     *
     * @return the read side, a lock whose grants are shared
     */
    DistributedLock readLock();

    /**
     * The exclusive side: held by one writer while no reader holds.
     *
     * @return the write side, a lock whose grants are exclusive
     */
    DistributedLock writeLock();

    /**
     * Turns a write grant of this lock into a read grant, in one store step: no other writer can take the lock in
     * between, and readers may join at once (unless a writer waits: writer preference still holds for them). The
     * write handle is ended by it (no longer valid, nothing to release); the returned read handle has its own
     * lease, renewal and loss signal. Its token continues the write grant's tenure: it is not lower than the write
     * grant's (stores that queue contenders, ZooKeeper and etcd, keep the writer's place and token), and every later
     * grant's token is greater.
     *
     * <pre>{@code
     * LockHandle write = catalog.writeLock().acquire(Duration.ofSeconds(10));
     * rebuildCache(write.fencingToken());
     * try (LockHandle read = catalog.downgrade(write)) {
     *     serveFromCache();                   // no writer got in after the rebuild
     * }
     * }</pre>
     *
     * <p>If the store cannot be reached, the write grant is released (best effort) and the exception is thrown:
     * nothing is held then.
     *
     * @param writeGrant a valid write grant of this lock, acquired through this client and not re-entered
     * @return the read grant
     * @throws IllegalArgumentException if the handle is not a write grant of this lock from this client
     * @throws IllegalStateException if the write grant was released or lost, or is held more than once
     * @throws UnsupportedOperationException if the backend cannot downgrade
     * @throws BackendUnavailableException if the store could not be asked
     */
    LockHandle downgrade(LockHandle writeGrant);
}

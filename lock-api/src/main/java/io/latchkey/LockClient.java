package io.latchkey;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The entry point to one lock store: thread-safe, one per application and backend, closed on shutdown.
 * Obtain one with {@link Latchkey#connect(String)} or {@link Latchkey#client(io.latchkey.spi.LockBackend)}.
 *
 * <p>Closing the client releases every lock it holds (their handles report
 * {@link LockLoss.Reason#CLIENT_CLOSED}) and closes the backend's resources; a backend built from a pool
 * or client the application passed in leaves that pool open.
 */
public interface LockClient extends AutoCloseable {

    /**
     * The lock with the given name and default options. The name is checked at once.
     *
     * @param name 1 to 255 UTF-8 bytes without control characters
     * @return the lock, not yet acquired
     */
    DistributedLock lock(String name);

    /**
     * The lock with the given name and options.
     *
     *
     * @param name 1 to 255 UTF-8 bytes without control characters
     * @param options how every grant of this lock is held and waited for
     * @return the lock, not yet acquired
     * @throws IllegalArgumentException if the name is not 1–255 UTF-8 bytes without control characters, or
     *                                  the options ask for something the backend cannot do
     */
    DistributedLock lock(String name, LockOptions options);

    /**
     * Several locks to be held together, with default options: see {@link MultiLock} (canonical order, all or
     * nothing within one wait budget).
     *
     *
     * @param names the locks' names, each 1 to 255 UTF-8 bytes without control characters, at least one, no duplicates
     * @return the multi-lock, not yet acquired
     * @throws IllegalArgumentException if no name is given, a name appears twice, or a name is invalid
     */
    MultiLock lockAll(String... names);

    /**
     * Several locks to be held together, each with {@code options}.
     *
     *
     * @param names the locks' names, at least one, no duplicates
     * @param options how each lock is held and waited for
     * @return the multi-lock, not yet acquired
     * @see #lockAll(String...)
     */
    MultiLock lockAll(Collection<String> names, LockOptions options);

    /**
     * The semaphore with this name and {@code permits} permits, with default options: see
     * {@link DistributedSemaphore}. The permit count is part of the semaphore's identity in the store: while the
     * store knows the name with another count, acquiring through this view fails with an
     * {@link IllegalArgumentException} naming both counts.
     *
     *
     * @param name 1 to 255 UTF-8 bytes without control characters
     * @param permits the number of permits, at least 1
     * @return the semaphore view, nothing acquired yet
     * @throws IllegalArgumentException      if the name is invalid or {@code permits} is not 1..10,000
     * @throws UnsupportedOperationException if the backend does not claim {@link Capability#SEMAPHORE}
     */
    DistributedSemaphore semaphore(String name, int permits);

    /**
     * The semaphore with this name, {@code permits} permits, and these options for every grant (lease, renewal,
     * retry strategy; reentrancy must be NONE).
     *
     *
     * @param name 1 to 255 UTF-8 bytes without control characters
     * @param permits the number of permits, at least 1
     * @param options how each grant is held and waited for (reentrancy NONE)
     * @return the semaphore view, nothing acquired yet
     * @see #semaphore(String, int)
     */
    DistributedSemaphore semaphore(String name, int permits, LockOptions options);

    /**
     * The read-write lock with this name and default options: see {@link DistributedReadWriteLock}.
     *
     *
     * @param name 1 to 255 UTF-8 bytes without control characters
     * @return the read-write lock, nothing acquired yet
     * @throws IllegalArgumentException      if the name is invalid
     * @throws UnsupportedOperationException if the backend does not claim {@link Capability#READ_WRITE}
     */
    DistributedReadWriteLock readWriteLock(String name);

    /**
     * The read-write lock with this name; {@code options} apply to both sides (lease, renewal, retry; reentrancy
     * PER_THREAD makes each side reentrant per thread, as {@code asJavaLock()} is).
     *
     *
     * @param name 1 to 255 UTF-8 bytes without control characters
     * @param options how each side's grants are held and waited for
     * @return the read-write lock, nothing acquired yet
     * @see #readWriteLock(String)
     */
    DistributedReadWriteLock readWriteLock(String name, LockOptions options);

    /**
     * What the store holds for this name right now, if anything.
     *
     * @param name the lock's name
     * @return the holder, token and expiry as the store reports them, or empty if the lock is free (a snapshot, possibly stale when it returns)
     */
    Optional<LockInfo> inspect(String name);

    /**
     * Every lock the store holds whose name starts with {@code prefix} ("" for all); needs {@link Capability#LISTING}.
     *
     * @param prefix the start of the names to list; {@code ""} for every lock
     * @return one entry per held lock, a snapshot
     */
    List<LockInfo> list(String prefix);

    /**
     * The handles this client holds now.
     *
     * @return the valid handles acquired through this client and not released
     */
    List<LockHandle> held();

    /**
     * Removes the current grant of {@code name} whoever holds it, for operators. The holder then reports
     * {@link LockLoss.Reason#RELEASED_BY_ADMIN} at its next renewal. An administrative action: it is logged at WARN
     * with the lock's name, the store, this client's id and the holder it removed (one read before the release), and
     * it needs the same rights in the store as acquiring the lock (per backend: docs/security.md), so whoever may
     * lock a name may also force it free; keep the credentials of tools that call this apart if that matters.
     *
     * @param name the lock's name
     * @return true if a grant was removed
     */
    boolean forceRelease(String name);

    /**
     * What this backend offers beyond the core contract.
     *
     * @return the capabilities the backend claims
     */
    Set<Capability> capabilities();

    /**
     * The backend's description: its URI without any password.
     *
     * @return the backend's description, safe to log
     */
    String backend();

    /**
     * Registers a listener for lock events (for metrics and logs).
     *
     * @param listener called on the core's threads; must not block
     */
    void addListener(LockListener listener);

    /**
     * Removes a listener added with {@link #addListener}; nothing happens if it was not registered.
     *
     * @param listener the listener to remove
     */
    void removeListener(LockListener listener);

    /** Releases what this client holds and closes the backend. Idempotent. */
    @Override
    void close();
}

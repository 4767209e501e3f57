package io.latchkey;

/**
 * Whether a thread that already holds a lock may acquire it again through the same {@link LockClient}.
 */
public enum Reentrancy {
    /**
     * Not reentrant (the default). A second acquisition by the holder waits like any other contender, and
     * {@link DistributedLock#tryAcquire()} returns empty. Handles may be released from any thread.
     */
    NONE,
    /**
     * Reentrant per thread inside one {@link LockClient}: a thread that holds the lock acquires it again at
     * once, without a store round trip, and receives a new handle that shares the grant (same fencing token).
     * The lock is released in the store when the last of these handles is released.
     */
    PER_THREAD
}

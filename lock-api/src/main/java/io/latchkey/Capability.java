package io.latchkey;

/**
 * What a backend offers beyond the core contract that every backend honours (exclusion, fencing, lease,
 * ownership, loss reporting, waiting, validation).
 *
 * <p>The TCK enables a capability's tests only for backends that claim it, and a backend that claims a
 * capability must pass them. A missing capability is not a defect: it tells the user what to expect.
 */
public enum Capability {
    /** Waiters from different clients are granted the lock in the order they started waiting (FIFO). */
    FAIR,
    /**
     * A waiter learns of a release through the store's own notification (pub/sub, watch, LISTEN/NOTIFY,
     * blocking lock) rather than by polling; hand-off latency is then independent of the retry strategy.
     */
    NATIVE_WAIT,
    /**
     * A grant is bound to a session or connection rather than (only) a lease: it ends when the session
     * ends, and the loss is reported as {@link LockLoss.Reason#SESSION_LOST}.
     */
    SESSION_BOUND,
    /** Expiry is judged by the store's clock, never by a client's wall clock. */
    SERVER_CLOCK,
    /** A lock that is held stays held when the store's server restarts (durable state). */
    SURVIVES_SERVER_RESTART,
    /** {@link LockClient#list(String)} enumerates the locks held in the store. */
    LISTING,
    /**
     * {@link LockClient#semaphore(String, int)}: counted permits, each grant a handle with its own lease, renewal,
     * loss signal and a fencing token that rises across the semaphore.
     */
    SEMAPHORE,
    /**
     * {@link LockClient#readWriteLock(String)}: shared read grants and exclusive write grants on one name, with
     * writer preference (once a writer waits, new readers wait) and one fencing counter for both sides.
     */
    READ_WRITE
}

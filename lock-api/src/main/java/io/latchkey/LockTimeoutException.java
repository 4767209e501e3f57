package io.latchkey;

import java.time.Duration;

/**
 * The lock was not acquired within the wait the caller allowed. Nothing is held when this is thrown.
 * The message carries the state seen while waiting (holder, attempts, local queue) to help diagnosis.
 */
public class LockTimeoutException extends LockException {
    private static final long serialVersionUID = 1L;

    /** How long the caller waited. */
    private final Duration waited;

    /**
     * A wait that ran out.
     *
     * @param message one line with the lock, the store and the state seen while waiting
     * @param lockName the lock's name
     * @param backend the backend's description, without a password
     * @param waited how long the caller waited
     */
    public LockTimeoutException(String message, String lockName, String backend, Duration waited) {
        super(message, lockName, backend);
        this.waited = waited;
    }

    /**
     * How long the caller waited before giving up.
     *
     * @return the time waited
     */
    public Duration waited() {
        return waited;
    }
}

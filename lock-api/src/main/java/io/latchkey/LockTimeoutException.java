package io.latchkey;

import java.time.Duration;

/**
 * The lock was not acquired within the wait the caller allowed. Nothing is held when this is thrown.
 * The message carries the state seen while waiting (holder, attempts, local queue) to help diagnosis.
 */
public class LockTimeoutException extends LockException {
    private static final long serialVersionUID = 1L;

    private final Duration waited;

    public LockTimeoutException(String message, String lockName, String backend, Duration waited) {
        super(message, lockName, backend);
        this.waited = waited;
    }

    /** How long the caller waited before giving up. */
    public Duration waited() {
        return waited;
    }
}

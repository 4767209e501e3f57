package io.latchkey;

import org.jspecify.annotations.Nullable;

/**
 * The store could not be reached or did not answer in time, so the outcome of the operation is unknown to
 * the caller. The core retries acquisitions with the same owner id, so a grant made by a request whose
 * answer was lost is recognised rather than leaked; a grant that is never recognised expires by its lease.
 */
public class BackendUnavailableException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * An unavailable store.
     *
     * @param message one line naming the operation, the lock and the store, without a password
     * @param lockName the lock's name, or {@code null} when no single lock is concerned
     * @param backend the backend's description, or {@code null} if unknown
     * @param cause the store client's error, or {@code null}
     */
    public BackendUnavailableException(
            String message, @Nullable String lockName, @Nullable String backend, @Nullable Throwable cause) {
        super(message, lockName, backend, cause);
    }
}

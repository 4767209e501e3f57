package io.latchkey;

import org.jspecify.annotations.Nullable;

/**
 * The store could not be reached or did not answer in time, so the outcome of the operation is unknown to
 * the caller. The core retries acquisitions with the same owner id, so a grant made by a request whose
 * answer was lost is recognised rather than leaked; a grant that is never recognised expires by its lease.
 */
public class BackendUnavailableException extends LockException {
    private static final long serialVersionUID = 1L;

    public BackendUnavailableException(
            String message, @Nullable String lockName, @Nullable String backend, @Nullable Throwable cause) {
        super(message, lockName, backend, cause);
    }
}

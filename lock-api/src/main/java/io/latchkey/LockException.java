package io.latchkey;

import org.jspecify.annotations.Nullable;

/**
 * Root of Latchkey's unchecked exceptions. Every message names the lock (when there is one) and the
 * backend, and never contains a password.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final @Nullable String lockName;
    private final @Nullable String backend;

    public LockException(
            String message, @Nullable String lockName, @Nullable String backend, @Nullable Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
        this.backend = backend;
    }

    public LockException(String message, @Nullable String lockName, @Nullable String backend) {
        this(message, lockName, backend, null);
    }

    /** The lock's name, or {@code null} when the failure concerns no single lock. */
    public @Nullable String lockName() {
        return lockName;
    }

    /** The backend's description (its URI with any password removed), or {@code null} if unknown. */
    public @Nullable String backend() {
        return backend;
    }
}

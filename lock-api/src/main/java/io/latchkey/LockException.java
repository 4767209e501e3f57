package io.latchkey;

import org.jspecify.annotations.Nullable;

/**
 * Root of Latchkey's unchecked exceptions. Every message names the lock (when there is one) and the
 * backend, and never contains a password.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The lock's name, or {@code null}. */
    private final @Nullable String lockName;
    /** The backend's description, or {@code null}. */
    private final @Nullable String backend;

    /**
     * A failure of a lock operation.
     *
     * @param message one line naming the lock and the store, without a password
     * @param lockName the lock's name, or {@code null} when no single lock is concerned
     * @param backend the backend's description, or {@code null} if unknown
     * @param cause the underlying error, or {@code null}
     */
    public LockException(
            String message, @Nullable String lockName, @Nullable String backend, @Nullable Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
        this.backend = backend;
    }

    /**
     * A failure of a lock operation without an underlying error.
     *
     * @param message one line naming the lock and the store, without a password
     * @param lockName the lock's name, or {@code null} when no single lock is concerned
     * @param backend the backend's description, or {@code null} if unknown
     */
    public LockException(String message, @Nullable String lockName, @Nullable String backend) {
        this(message, lockName, backend, null);
    }

    /**
     * The lock's name, or {@code null} when the failure concerns no single lock.
     *
     * @return the lock's name, or {@code null}
     */
    public @Nullable String lockName() {
        return lockName;
    }

    /**
     * The backend's description (its URI with any password removed), or {@code null} if unknown.
     *
     * @return the backend's description, or {@code null}
     */
    public @Nullable String backend() {
        return backend;
    }
}

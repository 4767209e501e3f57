package io.latchkey.spi;

import org.jspecify.annotations.Nullable;

/**
 * A backend's record of one grant; the core wraps it in a {@link io.latchkey.LockHandle}.
 *
 * @param name            the lock's name
 * @param owner           the owner id the grant was made for
 * @param fencingToken    strictly greater than every earlier grant's token for this name
 * @param validUntilNanos until when the grant is valid, in the backend's {@link TimeSource#nanoTime()},
 *                        counted conservatively from <em>before</em> the granting request was sent
 *                        (lease minus drift); {@link Long#MAX_VALUE} for a grant bound only to a session
 * @param state           backend-private data (a connection, a node path, a key), opaque to the core; may be null
 * @param kind            what was granted, as requested ({@link GrantKind#EXCLUSIVE} for a plain lock)
 */
public record Grant(
        String name,
        String owner,
        long fencingToken,
        long validUntilNanos,
        @Nullable Object state,
        GrantKind kind) implements AcquireResult {
    /**
     * A grant of an exclusive lock.
     *
     * @param name the lock's name
     * @param owner the owner id the grant was made for
     * @param fencingToken the grant's token
     * @param validUntilNanos the validity end, in the backend's {@link TimeSource#nanoTime()}
     * @param state backend-private data, or {@code null}
     */
    public Grant(String name, String owner, long fencingToken, long validUntilNanos, @Nullable Object state) {
        this(name, owner, fencingToken, validUntilNanos, state, GrantKind.EXCLUSIVE);
    }
}

package io.latchkey;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What the store says about one held lock, as returned by {@link LockClient#inspect(String)} and
 * {@link LockClient#list(String)}. It is a snapshot: by the time it is read the lock may have changed hands.
 *
 * @param name         the lock's name
 * @param owner        the owner id of the current grant (see {@link LockHandle#owner()})
 * @param fencingToken the current grant's fencing token
 * @param acquiredAt   when the grant was made, by the store's clock, if the store records it
 * @param expiresAt    when the grant expires unless renewed, by the store's clock; empty for grants bound
 *                     to a session rather than a lease
 */
public record LockInfo(
        String name, String owner, long fencingToken, Optional<Instant> acquiredAt, Optional<Instant> expiresAt) {
    /**
     * Checks that no component is null (the optional instants may be empty).
     *
     * @param name the lock's name
     * @param owner the owner id of the current grant
     * @param fencingToken the current grant's fencing token
     * @param acquiredAt when the grant was made, if the store records it
     * @param expiresAt when the grant expires unless renewed, if it has a lease
     */
    public LockInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(acquiredAt, "acquiredAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }
}

package io.latchkey.spi;

import io.latchkey.Fairness;
import java.time.Duration;

/**
 * One request for a grant, as the core hands it to a backend. The same owner id is used for every attempt
 * of one acquisition, so a backend must treat a grant it finds already held by {@code owner} as granted
 * (same token): that is how a request whose reply was lost is recognised instead of leaked.
 *
 * @param name     a valid lock name (the core has checked it: 1–255 UTF-8 bytes, no control characters)
 * @param owner    the owner id of this acquisition, unique across clients and time
 * @param lease    the lease to grant
 * @param fairness the caller's fairness preference
 * @param kind     what is asked for: {@link GrantKind#EXCLUSIVE} unless the backend claims {@code READ_WRITE} or
 *                 {@code SEMAPHORE}
 */
public record AcquireRequest(String name, String owner, Duration lease, Fairness fairness, GrantKind kind) {
    /**
     * A request for an exclusive lock.
     *
     * @param name the lock's name
     * @param owner the owner id of this acquisition, the same on every retry
     * @param lease the lease asked for
     * @param fairness the fairness asked for
     */
    public AcquireRequest(String name, String owner, Duration lease, Fairness fairness) {
        this(name, owner, lease, fairness, GrantKind.EXCLUSIVE);
    }
}

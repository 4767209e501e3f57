package io.latchkey.spi;

import io.latchkey.LockLoss;
import org.jspecify.annotations.Nullable;

/**
 * How a backend tells the core about losses it learns of by itself (session expiry, a dead connection,
 * a virtual clock moved past a lease) rather than in answer to a renewal. Given to the backend once by
 * {@link LockBackend#bind(GrantLossSink)}. Calls are cheap and never block; an unknown grant is ignored.
 */
public interface GrantLossSink {

    /**
     * The grant made to {@code owner} for {@code name} is gone.
     *
     * @param name the lock's name
     * @param owner the owner id of the grant
     * @param reason why it is gone
     * @param detail a human-readable explanation
     * @param cause the store client's error, or {@code null}
     */
    void grantLost(String name, String owner, LockLoss.Reason reason, String detail, @Nullable Throwable cause);

    /**
     * Every grant this backend instance made is gone (for example the session that bound them expired).
     *
     * @param reason why they are gone
     * @param detail a human-readable explanation
     * @param cause the store client's error, or {@code null}
     */
    void allLost(LockLoss.Reason reason, String detail, @Nullable Throwable cause);
}

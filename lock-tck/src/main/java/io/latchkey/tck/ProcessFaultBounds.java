package io.latchkey.tck;

import io.latchkey.Capability;
import java.time.Duration;

/** The bounds the rules that kill or pause a process (fault and recipe rules) hold a store to. */
final class ProcessFaultBounds {
    /** A session store's lock lives until the dead process's session times out (ZooKeeper, etcd's lease TTL). */
    static final Duration SESSION_ALLOWANCE = Duration.ofSeconds(10);

    private ProcessFaultBounds() {}

    /**
     * Acquires {@code name} through {@code other}, waiting up to {@code bound}; fails, saying what the store did not
     * do, if the dead or paused holder's grant outlives it.
     */
    static io.latchkey.LockHandle awaitFreed(
            io.latchkey.LockClient other, String name, Duration bound, String holder) {
        return Tck.mustAcquire(
                other.lock(name, Tck.fastRetry(io.latchkey.LockOptions.defaults())),
                bound,
                () -> "the lock '" + name + "' of " + holder + " was still held " + bound.toMillis()
                        + " ms later: LockBackend.tryAcquire kept answering busy (a grant must end with its lease, or"
                        + " its session, once its holder stops renewing it)");
    }

    /** How soon a lock must be free after its holder died: lease plus slack, and a session timeout for session stores. */
    static Duration freedWithin(TckContext tck, Duration lease) {
        return lease.plus(tck.settings().slack()).plus(sessionAllowance(tck));
    }

    /** What a dead process's session adds before its locks free: {@link #SESSION_ALLOWANCE} on a session store. */
    static Duration sessionAllowance(TckContext tck) {
        return tck.capabilities().contains(Capability.SESSION_BOUND) ? SESSION_ALLOWANCE : Duration.ZERO;
    }
}

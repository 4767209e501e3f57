package io.latchkey.shedlock;

import io.latchkey.BackendUnavailableException;
import io.latchkey.LockException;
import io.latchkey.LockHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * One ShedLock lock over one Latchkey handle. ShedLock allows exactly one of unlock() and extend() per lock object:
 * `open` is flipped once by whichever comes first (compareAndSet), so a second call, or a race of two, gets the
 * IllegalStateException ShedLock asks for and never a second store operation. An extension passes the same handle on
 * to a new lock object with its own `open` flag and its own scheduled release at the new lockAtMostUntil.
 */
final class LatchkeySimpleLock implements SimpleLock {
    private static final Logger LOG = LoggerFactory.getLogger(LatchkeySimpleLock.class);

    private final LatchkeyLockProvider provider;
    private final LockHandle handle;
    private final LockConfiguration config;
    private final ScheduledFuture<?> atMost;
    private final AtomicBoolean open = new AtomicBoolean(true);

    LatchkeySimpleLock(
            LatchkeyLockProvider provider, LockHandle handle, LockConfiguration config, ScheduledFuture<?> atMost) {
        this.provider = provider;
        this.handle = handle;
        this.config = config;
        this.atMost = atMost;
    }

    @Override
    public void unlock() {
        close("unlock");
        atMost.cancel(false);
        Instant atLeast = config.getLockAtLeastUntil();
        Duration left = Duration.between(ClockProvider.now(), atLeast);
        if (left.isNegative() || left.isZero()) {
            handle.release();
            return;
        }
        // held until lockAtLeastUntil: cut the lease to end there, so the store frees it there even if this process
        // dies now, and release it there ourselves (also if the cut fails: the grant still ends on time)
        if (handle.isValid()) {
            try {
                boolean unused = handle.renew(LatchkeyLockProvider.until(atLeast));
            } catch (LockException e) {
                LOG.debug("Could not cut the lease of '{}' to lockAtLeastUntil; it is released then anyway", name(), e);
            }
        }
        provider.releaseAt(handle, atLeast);
    }

    @Override
    public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
        close("extend");
        atMost.cancel(false);
        LockConfiguration extended =
                new LockConfiguration(ClockProvider.now(), config.getName(), lockAtMostFor, lockAtLeastFor);
        if (!renewTo(extended.getLockAtMostUntil())) {
            handle.release(); // gone already: forget it here too
            return Optional.empty();
        }
        return Optional.of(new LatchkeySimpleLock(
                provider, handle, extended, provider.releaseAt(handle, extended.getLockAtMostUntil())));
    }

    /**
     * Renews to end at {@code until}; false if ShedLock's lockAtMostUntil has passed (the lock expired, whatever the
     * store still keeps), or the grant is gone, or it ran out while the renewal was under way.
     */
    private boolean renewTo(Instant until) {
        if (!ClockProvider.now().isBefore(config.getLockAtMostUntil()) || !handle.isValid()) {
            return false;
        }
        try {
            return handle.renew(LatchkeyLockProvider.until(until));
        } catch (BackendUnavailableException e) {
            if (handle.isValid()) {
                throw e; // the store could not be asked: the caller decides, as with any store failure
            }
            return false;
        }
    }

    private String name() {
        return config.getName();
    }

    private void close(String operation) {
        if (!open.compareAndSet(true, false)) {
            throw new IllegalStateException("cannot " + operation + " lock '" + config.getName()
                    + "': it was already unlocked or extended (ShedLock allows one of them per lock)");
        }
    }

    @Override
    public String toString() {
        return "LatchkeySimpleLock[" + config + ", token " + handle.fencingToken() + "]";
    }
}

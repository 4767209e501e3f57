package io.latchkey.core;

import io.latchkey.DistributedLock;
import io.latchkey.LockHandle;
import io.latchkey.LockTimeoutException;
import io.latchkey.MultiLock;
import io.latchkey.MultiLockHandle;
import io.latchkey.spi.Deadlines;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/*
 * lockAll: the parts in canonical order, each taken with what is left of one wait budget; on any failure (timeout,
 * interrupt, store error) the parts already taken are released in reverse order before the failure goes to the
 * caller, so a failed call never leaves anything held. No state of its own: every call works on its own list.
 */
final class CoreMultiLock implements MultiLock {
    private final List<String> names;
    private final List<DistributedLock> locks;

    CoreMultiLock(List<String> canonicalNames, List<DistributedLock> locks) {
        this.names = List.copyOf(canonicalNames);
        this.locks = List.copyOf(locks);
    }

    @Override
    public List<String> names() {
        return names;
    }

    @Override
    public Optional<MultiLockHandle> tryAcquire() {
        try {
            return Optional.of(acquireAll(Duration.ZERO));
        } catch (LockTimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // a no-wait attempt does not block; keep the status for the caller
            return Optional.empty();
        }
    }

    @Override
    public Optional<MultiLockHandle> tryAcquire(Duration wait) throws InterruptedException {
        try {
            return Optional.of(acquireAll(io.latchkey.Durations.requireWait(wait, "wait")));
        } catch (LockTimeoutException e) {
            return Optional.empty();
        }
    }

    @Override
    public MultiLockHandle acquire(Duration wait) throws InterruptedException {
        return acquireAll(io.latchkey.Durations.requireWait(wait, "wait"));
    }

    @Override
    public MultiLockHandle acquire() throws InterruptedException {
        return acquireAll(null);
    }

    /** Takes every part within {@code wait} (null: without limit), or releases what it took and rethrows. */
    private MultiLockHandle acquireAll(@Nullable Duration wait) throws InterruptedException {
        long deadline = wait == null ? 0 : Deadlines.after(System.nanoTime(), wait);
        List<LockHandle> taken = new ArrayList<>(locks.size());
        try {
            for (DistributedLock lock : locks) {
                if (wait == null) {
                    taken.add(lock.acquire());
                } else {
                    long left = Deadlines.remaining(deadline, System.nanoTime());
                    taken.add(lock.acquire(Duration.ofNanos(left)));
                }
            }
        } catch (InterruptedException | RuntimeException | Error e) {
            CoreMultiLockHandle.releaseInReverse(taken);
            throw e;
        }
        return new CoreMultiLockHandle(taken);
    }

    @Override
    public String toString() {
        return "MultiLock" + names;
    }
}

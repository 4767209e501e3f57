package io.latchkey.core;

import io.latchkey.LockHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * java.util.concurrent.locks.Lock over a PER_THREAD-reentrant DistributedLock. Each thread keeps a stack
 * of the handles it acquired (a ThreadLocal, so no locking); unlock() releases the innermost one, and the
 * store is released with the outermost, as the core's reentrancy counts holds.
 */
final class JavaLockView implements Lock {
    private static final Logger log = LoggerFactory.getLogger(JavaLockView.class);

    private final CoreLock lock;
    private final ThreadLocal<ArrayDeque<LockHandle>> holds = ThreadLocal.withInitial(ArrayDeque::new);

    JavaLockView(CoreLock lock) {
        this.lock = lock;
    }

    @Override
    public void lock() {
        boolean interrupted = false;
        try {
            for (; ; ) {
                try {
                    holds.get().push(lock.acquire());
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // Lock.lock() is not interruptible: keep waiting, restore the flag after
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        holds.get().push(lock.acquire());
    }

    @Override
    public boolean tryLock() {
        return lock.tryAcquire().map(this::push).orElse(false);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (unit == null) {
            throw new IllegalArgumentException("unit must not be null");
        }
        Duration wait = time <= 0 ? Duration.ZERO : Duration.ofNanos(unit.toNanos(time));
        return lock.tryAcquire(wait).map(this::push).orElse(false);
    }

    private boolean push(LockHandle h) {
        holds.get().push(h);
        return true;
    }

    @Override
    public void unlock() {
        ArrayDeque<LockHandle> mine = holds.get();
        LockHandle h = mine.poll();
        if (h == null) {
            throw new IllegalMonitorStateException(
                    "lock '" + lock.name() + "' on " + lock.client().backend() + " is not held by thread "
                            + Thread.currentThread().getName());
        }
        if (mine.isEmpty()) {
            holds.remove();
        }
        if (!h.release()) {
            log.warn(
                    "unlock() of lock '{}' on {}: the lock had already been lost",
                    lock.name(),
                    lock.client().backend());
        }
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException(
                "conditions are not supported by distributed locks ('" + lock.name() + "')");
    }

    @Override
    public String toString() {
        return "JavaLock['" + lock.name() + "' on " + lock.client().backend() + "]";
    }
}

package io.latchkey.spring;

import io.latchkey.BackendUnavailableException;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ConcurrentModificationException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.integration.support.locks.DistributedLock;

/*
 * One key of a LatchkeyLockRegistry, with Spring Integration's lock semantics: reentrant per thread, unlocked by the
 * locking thread only, a lock that expired in the store reported at unlock (ConcurrentModificationException), store
 * failures as Spring's DAO exceptions.
 *
 * Concurrency: each thread keeps the handles it acquired on a stack in a ThreadLocal (no locking; unlock releases the
 * innermost, and the core releases the grant in the store with the outermost, since the options are PER_THREAD
 * reentrant). `holds` counts handles across threads only so that the registry's expireUnusedOlderThan never drops a
 * lock that someone holds; `lastUsed` is a plain volatile timestamp. Waiting, exclusion between this process's threads
 * and the store round trips are the core's (LocalGates, AcquireLoop): nothing here blocks but the core's calls.
 */
final class LatchkeySpringLock implements DistributedLock {
    private final LatchkeyLockRegistry registry;
    private final String name;
    private final ThreadLocal<ArrayDeque<LockHandle>> mine = ThreadLocal.withInitial(ArrayDeque::new);
    private final AtomicInteger holds = new AtomicInteger();
    private volatile long lastUsed = System.currentTimeMillis();

    LatchkeySpringLock(LatchkeyLockRegistry registry, String name) {
        this.registry = registry;
        this.name = name;
    }

    String name() {
        return name;
    }

    @Override
    public void lock() {
        lock(registry.ttl());
    }

    @Override
    public void lock(Duration ttl) {
        boolean interrupted = false;
        try {
            for (; ; ) {
                try {
                    push(registry.latchkeyLock(name, ttl).acquire());
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // Lock.lock() is not interruptible: keep waiting, restore the flag after
                } catch (BackendUnavailableException e) {
                    throw cannotAcquire(e);
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
        try {
            push(registry.latchkeyLock(name, registry.ttl()).acquire());
        } catch (BackendUnavailableException e) {
            throw cannotAcquire(e);
        }
    }

    @Override
    public boolean tryLock() {
        try {
            return registry.latchkeyLock(name, registry.ttl())
                    .tryAcquire()
                    .map(this::push)
                    .orElse(false);
        } catch (BackendUnavailableException e) {
            throw cannotAcquire(e);
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (unit == null) {
            throw new IllegalArgumentException("unit must not be null");
        }
        return tryLock(time <= 0 ? Duration.ZERO : Duration.ofNanos(unit.toNanos(time)), registry.ttl());
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        if (waitTime == null || waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime must be zero or positive, was " + waitTime);
        }
        try {
            Optional<LockHandle> handle = registry.latchkeyLock(name, ttl).tryAcquire(waitTime);
            return handle.map(this::push).orElse(false);
        } catch (BackendUnavailableException e) {
            throw cannotAcquire(e);
        }
    }

    private boolean push(LockHandle handle) {
        mine.get().push(handle);
        holds.incrementAndGet();
        lastUsed = System.currentTimeMillis();
        return true;
    }

    @Override
    public void unlock() {
        ArrayDeque<LockHandle> stack = mine.get();
        LockHandle handle = stack.poll();
        if (handle == null) {
            throw new IllegalMonitorStateException("lock '" + name + "' on " + registry.backend()
                    + " is not held by thread " + Thread.currentThread().getName());
        }
        if (stack.isEmpty()) {
            mine.remove();
        }
        holds.decrementAndGet();
        lastUsed = System.currentTimeMillis();
        boolean released;
        try {
            released = handle.release();
        } catch (BackendUnavailableException e) {
            throw new DataAccessResourceFailureException(e.getMessage(), e);
        }
        if (!released) {
            LockLoss loss = handle.lost().toCompletableFuture().getNow(null);
            String why = loss == null ? "" : " (" + loss + ")";
            throw new ConcurrentModificationException("lock '" + name + "' on " + registry.backend()
                    + " was released in the store before unlock" + why
                    + ": another holder may have changed the data it guards");
        }
    }

    /** Renews the calling thread's grant to {@code ttl}; false if it was lost. */
    boolean renew(Duration ttl) {
        LockHandle handle = mine.get().peek();
        if (handle == null) {
            mine.remove();
            throw new IllegalMonitorStateException("cannot renew lock '" + name + "' on " + registry.backend()
                    + ": it is not held by thread " + Thread.currentThread().getName());
        }
        try {
            return handle.renew(ttl);
        } catch (BackendUnavailableException e) {
            throw new DataAccessResourceFailureException(e.getMessage(), e);
        }
    }

    boolean unusedSince(long cutoffMillis) {
        return holds.get() == 0 && lastUsed < cutoffMillis;
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException(
                "conditions are not supported by distributed locks ('" + name + "' on " + registry.backend() + ")");
    }

    private CannotAcquireLockException cannotAcquire(BackendUnavailableException e) {
        return new CannotAcquireLockException(e.getMessage(), e);
    }

    @Override
    public String toString() {
        return "LatchkeySpringLock['" + name + "' on " + registry.backend() + ", " + holds.get() + " holds]";
    }
}

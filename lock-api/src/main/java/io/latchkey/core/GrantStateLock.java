package io.latchkey.core;

import java.util.concurrent.locks.AbstractQueuedSynchronizer;

/*
 * The lock that guards one grant's state (HeldLock) and its watchdog's bookkeeping (Watchdog), as the grant's own
 * synchronizer rather than a ReentrantLock beside it: one grant is made per acquisition, and a ReentrantLock and its
 * sync were 48 of a cycle's bytes. It parks waiters (AbstractQueuedSynchronizer), so a virtual thread that waits for it
 * does not pin its carrier, as a monitor would on JDK 21.
 *
 * Concurrency design. A plain mutex: state 1 is held (by the owner thread), 0 free. It is held only around bookkeeping,
 * never around I/O or a call into user code (see HeldLock's note), so it is never taken again by the thread that holds
 * it; a thread that does is a bug, reported with an IllegalStateException rather than left deadlocked.
 */
abstract class GrantStateLock extends AbstractQueuedSynchronizer {
    private static final long serialVersionUID = 1L;

    /** Takes the state lock, waiting (uninterruptibly, briefly: it is never held around I/O) while another holds it. */
    final void lockState() {
        acquire(1);
    }

    final void unlockState() {
        release(1);
    }

    @Override
    protected final boolean tryAcquire(int ignored) {
        if (compareAndSetState(0, 1)) {
            setExclusiveOwnerThread(Thread.currentThread());
            return true;
        }
        if (getExclusiveOwnerThread() == Thread.currentThread()) {
            throw new IllegalStateException("a grant's state lock was taken again by the thread that holds it");
        }
        return false;
    }

    @Override
    protected final boolean tryRelease(int ignored) {
        if (getExclusiveOwnerThread() != Thread.currentThread()) {
            throw new IllegalMonitorStateException("a grant's state lock was released by a thread that does not hold it");
        }
        setExclusiveOwnerThread(null);
        setState(0);
        return true;
    }

    @Override
    protected final boolean isHeldExclusively() {
        return getExclusiveOwnerThread() == Thread.currentThread();
    }
}

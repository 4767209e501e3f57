package io.latchkey.core;

import io.latchkey.LockException;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockLostException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/*
 * runExclusive: acquire, run the task on the caller's thread, release.
 *
 * Loss while the task runs interrupts the task's thread. The interrupt must never escape to code after
 * runExclusive, so a small state machine separates "task running" from "task done": the loss listener
 * interrupts only if it wins RUNNING -> INTERRUPTING; the finishing thread either wins RUNNING -> DONE (no
 * interrupt was or will be sent) or waits for INTERRUPTED and then clears the interrupt it caused.
 */
final class ExclusiveRunner {
    private ExclusiveRunner() {}

    static <T> T run(CoreLock lock, Duration wait, Function<? super LockHandle, ? extends T> task)
            throws InterruptedException {
        CoreHandle handle = (CoreHandle) lock.acquire(wait);
        Interrupter interrupter = new Interrupter(Thread.currentThread());
        handle.onLost(loss -> interrupter.interrupt());
        T result = null;
        Throwable failure = null;
        try {
            result = task.apply(handle);
        } catch (Throwable t) {
            failure = t;
        }
        boolean interrupted = interrupter.finish();
        LockLoss loss = lossDuringTask(handle, interrupted);
        handle.close();
        if (loss != null) {
            LockLostException lost = new LockLostException(loss, lock.client().backend());
            if (failure != null) {
                lost.addSuppressed(failure);
            }
            throw lost;
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure instanceof Error err) {
            throw err;
        }
        if (failure != null) { // a checked exception thrown sneakily
            throw new LockException(
                    "task under lock '" + lock.name() + "' failed",
                    lock.name(),
                    lock.client().backend(),
                    failure);
        }
        return result;
    }

    /** The loss, if it happened before the task finished (the listener may still be on its way). */
    private static LockLoss lossDuringTask(CoreHandle handle, boolean interrupted) {
        if (!interrupted && handle.isValid()) {
            return null;
        }
        return handle.lost().toCompletableFuture().getNow(null);
    }

    static final class Interrupter {
        private static final int RUNNING = 0;
        private static final int DONE = 1;
        private static final int INTERRUPTING = 2;
        private static final int INTERRUPTED = 3;

        private final Thread thread;
        private final AtomicInteger state = new AtomicInteger(RUNNING);

        Interrupter(Thread thread) {
            this.thread = thread;
        }

        void interrupt() {
            if (state.compareAndSet(RUNNING, INTERRUPTING)) {
                thread.interrupt();
                state.set(INTERRUPTED);
            }
        }

        /** Called by the task's thread when the task is over; true if an interrupt was sent (and is now cleared). */
        boolean finish() {
            if (state.compareAndSet(RUNNING, DONE)) {
                return false;
            }
            while (state.get() == INTERRUPTING) {
                Thread.onSpinWait();
            }
            Thread.interrupted();
            return true;
        }
    }
}

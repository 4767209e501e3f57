package io.latchkey.recipes;

import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.spi.DaemonThreads;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/*
 * One task that runs on a thread of its own only while its lock is held: the one place the recipes start a task
 * under a grant and cancel it (ExclusiveTasks per key, WorkDistributor per item).
 *
 * Concurrency design. Three parties touch a HeldTask: the thread that starts it, the task's own thread, and
 * whoever cancels it (the grant's loss listener on a core thread, stop(), close()). The first cancellation wins
 * one compare-and-set on `cancelled` and is the only one that interrupts; later ones see it and return. The
 * thread is dedicated to this task and ends with it, so an interrupt can never leak into unrelated code (the
 * problem core/ExclusiveRunner solves for the caller's thread does not arise). The grant is released by the
 * task's own thread after the task returned, never by the canceller, so a release never races the task still
 * writing under the lock. No lock is held at any point, so nothing waits on I/O under a monitor.
 */
final class HeldTask {

    /** Why a task was cancelled, as passed to {@link #cancel(Cancellation)}. */
    enum Cancellation {
        /** The lock was lost (its {@link LockHandle#lost()} completed). */
        LOST,
        /** The owner stopped the task: stop(key), a surplus item given up, or a relinquished term. */
        STOPPED,
        /** The recipe is closing. */
        CLOSED
    }

    /** How a task ended: by itself (normally or by throwing), or cancelled. */
    record Outcome(
            @Nullable Cancellation cancelledBy,
            @Nullable Throwable failure,
            @Nullable LockLoss loss) {}

    /** The code run under the lock; the same shape as the public task interfaces. */
    @FunctionalInterface
    interface Body {
        void run(LockHandle handle) throws Exception;
    }

    private static final Duration LOSS_REPORT_GRACE = Duration.ofSeconds(1);

    private final String threadName;
    private final LockHandle handle;
    private final Body body;
    private final boolean releaseWhenDone;
    private final AtomicReference<@Nullable Cancellation> cancelled = new AtomicReference<>();
    private final CompletableFuture<Outcome> ended = new CompletableFuture<>();
    private volatile @Nullable Thread thread;

    /**
     * @param threadName      the task thread's name (say which recipe and key: {@code latchkey-task-orders/42})
     * @param handle          the grant the task runs under
     * @param body            the task
     * @param releaseWhenDone whether the task's thread releases the grant when the task returns by itself
     *                        (a cancelled task's grant is always released)
     */
    HeldTask(String threadName, LockHandle handle, Body body, boolean releaseWhenDone) {
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        this.handle = Objects.requireNonNull(handle, "handle");
        this.body = Objects.requireNonNull(body, "body");
        this.releaseWhenDone = releaseWhenDone;
    }

    /** Starts the task's thread and arms cancellation on loss of the grant. Call once. */
    HeldTask start() {
        if (thread != null) {
            throw new IllegalStateException("task " + threadName + " was already started");
        }
        Thread t = DaemonThreads.start(threadName, this::runBody);
        thread = t;
        handle.onLost(loss -> cancel(Cancellation.LOST));
        return this;
    }

    LockHandle handle() {
        return handle;
    }

    /** True until the task has returned (by itself or after cancellation) and its grant was dealt with. */
    boolean isRunning() {
        return !ended.isDone();
    }

    /** Why the task was cancelled, if it was. */
    @Nullable
    Cancellation cancellation() {
        return cancelled.get();
    }

    /**
     * Cancels the task: interrupts its thread (once, whoever calls first). The grant is released when the task
     * has returned. Returns whether this call was the one that cancelled.
     */
    boolean cancel(Cancellation why) {
        if (!cancelled.compareAndSet(null, why)) {
            return false;
        }
        Thread t = thread;
        if (t != null && !ended.isDone()) {
            t.interrupt();
        }
        return true;
    }

    /** Completes when the task has ended and its grant was released (or kept, see the constructor). */
    CompletionStage<Outcome> ended() {
        return ended;
    }

    /** Waits up to {@code timeout} for the task to end; true if it did. */
    boolean awaitEnd(Duration timeout) throws InterruptedException {
        try {
            ended.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            return true; // never completed exceptionally, but an ended task is ended
        }
    }

    private void runBody() {
        Throwable failure = null;
        try {
            if (cancelled.get() == null) {
                body.run(handle);
            }
        } catch (InterruptedException e) {
            // the cancellation's interrupt, or the task's own: either way the task is over
        } catch (Throwable t) {
            failure = t;
        }
        Thread.interrupted(); // the interrupt, if any, was for this task: the release below must not see it
        if (cancelled.get() == null && !handle.isValid()) {
            // the task saw its handle go invalid and returned before the loss listener cancelled it: that is a loss
            awaitLossReport();
        }
        Cancellation why = cancelled.get();
        if (why != null || releaseWhenDone) {
            handle.close(); // never throws; a store failure leaves the grant to its lease
        }
        LockLoss loss = handle.lost().toCompletableFuture().getNow(null);
        ended.complete(new Outcome(why, failure, loss));
    }

    /**
     * A handle turns invalid when its loss is recorded or its validity runs out, and lost() completes no later than
     * that validity (or at once if released): wait briefly for the report and count the task as cancelled by it.
     */
    private void awaitLossReport() {
        try {
            handle.lost().toCompletableFuture().get(LOSS_REPORT_GRACE.toNanos(), TimeUnit.NANOSECONDS);
            cancelled.compareAndSet(null, Cancellation.LOST);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
            // no loss reported: the task simply ended
        }
        Thread.interrupted();
    }

    @Override
    public String toString() {
        return "HeldTask[" + threadName + ", token " + handle.fencingToken()
                + (ended.isDone() ? ", ended" : ", running")
                + (cancelled.get() == null ? "" : ", cancelled: " + cancelled.get()) + "]";
    }
}

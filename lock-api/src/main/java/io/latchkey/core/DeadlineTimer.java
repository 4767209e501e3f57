package io.latchkey.core;

import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The watchdog's timer: one daemon thread that runs short, non-blocking tasks at deadlines (renewal due,
 * validity about to run out). Why not a ScheduledThreadPoolExecutor? It signals its thread whenever a new
 * task becomes the earliest, which for a lock taken and released in a loop is every acquisition: a thread
 * wake-up per cycle, the largest part of the core's cost. Here scheduling and cancelling never wake the thread
 * unless the new deadline is earlier than the one it sleeps until; deadlines of held locks are seconds away,
 * so in a steady state the thread wakes about once per renewal interval, not once per lock operation.
 *
 * Concurrency design:
 * - pending tasks live in a ConcurrentSkipListSet ordered by (deadline, sequence); cancel() and the timer
 *   thread both claim a task by removing it, so exactly one of them wins and a cancelled task never runs;
 * - the thread publishes the deadline it will sleep until (`plannedWake`, volatile) and then looks at the
 *   earliest task again before parking; a scheduler adds its task first and then reads `plannedWake`. Either
 *   the scheduler sees the new plan (and unparks the thread if its deadline is earlier) or the thread's
 *   second look sees the new task: no deadline is overslept. While awake the plan is "now", so schedulers
 *   do not unpark a thread that is about to look anyway.
 * Times are System.nanoTime() values compared by subtraction, as nanoTime requires.
 */
final class DeadlineTimer {
    private static final Logger log = LoggerFactory.getLogger(DeadlineTimer.class);

    /** A scheduled task; {@link #cancel()} is idempotent and never blocks. */
    final class Timeout implements Comparable<Timeout> {
        private final long deadline;
        private final long sequence;
        private final Runnable task;

        private Timeout(long deadline, long sequence, Runnable task) {
            this.deadline = deadline;
            this.sequence = sequence;
            this.task = task;
        }

        /** How long until the task runs (negative once due). */
        long remainingNanos() {
            return deadline - System.nanoTime();
        }

        /**
         * Keeps the task from running unless the timer thread has already taken it.
         *
         * @return true if this call kept it from running; false if it had run, was running or about to, or was
         *     cancelled before
         */
        boolean cancel() {
            return pending.remove(this);
        }

        @Override
        public int compareTo(Timeout o) {
            long d = deadline - o.deadline;
            return d != 0 ? (d < 0 ? -1 : 1) : Long.compare(sequence, o.sequence);
        }
    }

    private final ConcurrentSkipListSet<Timeout> pending = new ConcurrentSkipListSet<>();
    private final AtomicLong sequence = new AtomicLong();
    private final Thread thread;
    private volatile long plannedWake;
    private volatile boolean sleepingUntilWoken;
    private volatile boolean shutdown;
    private volatile long ran; // written by the timer thread alone

    DeadlineTimer(ThreadFactory threads) {
        this.plannedWake = System.nanoTime();
        this.thread = threads.newThread(this::run);
        this.thread.start();
    }

    /**
     * Runs {@code task} on the timer thread once {@code delayNanos} have passed.
     *
     * @throws RejectedExecutionException after {@link #shutdown()}
     */
    Timeout schedule(Runnable task, long delayNanos) {
        if (shutdown) {
            throw new RejectedExecutionException("the timer is shut down");
        }
        Timeout t = new Timeout(System.nanoTime() + Math.max(0, delayNanos), sequence.incrementAndGet(), task);
        pending.add(t);
        if (sleepingUntilWoken || t.deadline - plannedWake < 0) {
            LockSupport.unpark(thread);
        }
        return t;
    }

    /** Stops the thread; pending tasks never run. */
    void shutdown() {
        shutdown = true;
        pending.clear();
        LockSupport.unpark(thread);
    }

    /** For tests: tasks waiting to run. */
    int pendingCount() {
        return pending.size();
    }

    /** For tests: tasks run so far. */
    long ranCount() {
        return ran;
    }

    private void run() {
        while (!shutdown) {
            long now = System.nanoTime();
            plannedWake = now; // awake: schedulers need not unpark us, we look at the queue before sleeping
            Timeout first = earliest();
            if (first != null && first.deadline - now <= 0) {
                if (pending.remove(first)) { // claimed: a concurrent cancel() lost
                    ran++; // NOPMD: one writer (this thread); volatile only so that tests read it
                    runSafely(first);
                }
                continue;
            }
            if (first == null) {
                sleepingUntilWoken = true;
                if (earliest() == null && !shutdown) {
                    LockSupport.park(this);
                }
                sleepingUntilWoken = false;
            } else {
                plannedWake = first.deadline;
                if (earliest() == first && !shutdown) {
                    LockSupport.parkNanos(this, first.deadline - now);
                }
            }
        }
    }

    private Timeout earliest() {
        try {
            return pending.first();
        } catch (java.util.NoSuchElementException empty) {
            return null;
        }
    }

    private static void runSafely(Timeout t) {
        try {
            t.task.run();
        } catch (Throwable e) { // NOPMD: the one timer thread of a client must outlive any task
            // a held lock's own task turns every failure into a loss report; reaching here is a bug
            log.error("A Latchkey timer task failed; the timer goes on", e);
        }
    }
}

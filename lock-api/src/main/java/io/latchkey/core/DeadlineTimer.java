package io.latchkey.core;

import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The watchdog's timer: one daemon thread that runs short, non-blocking tasks at deadlines (renewal due,
 * validity about to run out). Why not a ScheduledThreadPoolExecutor? It signals its thread whenever a new
 * task becomes the earliest, which for a lock taken and released in a loop is every acquisition: a thread
 * wake-up per cycle, the largest part of the core's cost. Here scheduling and cancelling never wake the thread
 * unless the new deadline is earlier than the one it sleeps until; deadlines of held locks are seconds away,
 * so in a steady state the thread wakes about once per renewal interval, not once per lock operation (and, while
 * locks are being taken, twice per DEFER for the sweep of lazily armed timers: see armLater).
 *
 * Concurrency design:
 * - pending tasks live in a ConcurrentSkipListSet ordered by (deadline, sequence); cancel() and the timer
 *   thread both claim a task by removing it, so exactly one of them wins and a cancelled task never runs;
 * - the thread publishes the deadline it will sleep until (`plannedWake`, volatile) and then looks at the
 *   earliest task again before parking; a scheduler adds its task first and then reads `plannedWake`. Either
 *   the scheduler sees the new plan (and unparks the thread if its deadline is earlier) or the thread's
 *   second look sees the new task: no deadline is overslept. While awake the plan is "now", so schedulers
 *   do not unpark a thread that is about to look anyway.
 * - armLater: a deadline far away need not enter the skip list at once. Its holder is pushed on a lock-free
 *   stack (the holder is the node: no allocation), and a sweep takes the whole stack and lets each holder arm its
 *   real timer if it still needs one. A lock released before the next sweep never touches the skip list. A sweep
 *   comes DEFER after the push that found none coming (`sweepScheduled`: claimed with a CAS, cleared by that sweep
 *   before it takes the stacks, so a push after the take schedules the next one; a schedule that fails gives the
 *   claim back, and the next push schedules the sweep that arms what was left), and at once when a stack reaches
 *   SWEEP_AT_DEPTH (each node knows its depth, so exactly one push sees it): the stacks keep few released grants
 *   reachable however fast locks are taken (while the timer thread keeps up: one deep sweep per stack), and a
 *   client taking locks slowly costs about two wake-ups per DEFER. There is one stack per thread stripe
 *   (ThreadStripes), each on its own cache line, and a sweep takes them all: threads acquiring at once on different
 *   cores do not push onto one head (at 8 threads one shared head was an eighth of the core's time). Each stack is
 *   swept at SWEEP_AT_DEPTH, so up to STACKS times that many released grants can wait for a sweep (a few megabytes
 *   at most), while one thread's cycles still cost one wake-up per SWEEP_AT_DEPTH.
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

    /**
     * How long a deferred arming waits (armLater) at most, unless many wait: at least this after the push that
     * scheduled the sweep, plus the thread's lateness.
     */
    static final long DEFER_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Only a first event at least this far away is armed lazily: several DEFERs, for a thread that runs late. */
    static final long DEFER_FROM_NANOS = 4 * DEFER_NANOS;
    /** A stack this deep is swept at once: what released grants a stack keeps reachable, while the thread keeps up. */
    static final int SWEEP_AT_DEPTH = 1024;
    /** Deferred stacks, a power of two; a thread pushes onto its stripe's. */
    private static final int STACKS = 8;
    /** The stacks' slots in `deferred`: one every ThreadStripes.SPACING. */
    private static final int STACK_SLOTS = STACKS * ThreadStripes.SPACING;

    /** A holder of a timer that it may arm lazily (armLater); the holder is its own stack node. */
    abstract static class Deferred {
        private @org.jspecify.annotations.Nullable Deferred nextDeferred;
        private int depth; // of the stack with this node on top

        /**
         * On the timer thread, at most about {@link #DEFER_NANOS} after {@link #armLater}: arm the real timer if
         * it is still needed. Must not wait for long (a lock held only briefly, never around I/O); whatever it
         * throws is the holder's to handle (it is logged and the sweep goes on).
         */
        abstract void armNow();
    }

    private final ConcurrentSkipListSet<Timeout> pending = new ConcurrentSkipListSet<>();
    private final AtomicReferenceArray<@org.jspecify.annotations.Nullable Deferred> deferred =
            new AtomicReferenceArray<>(STACK_SLOTS);
    private final AtomicBoolean sweepScheduled = new AtomicBoolean();
    private final Runnable sweep = () -> {
        sweepScheduled.set(false); // before the take: a push after it schedules the next sweep
        armDeferred();
    };
    private final Runnable sweepNow = this::armDeferred; // the deep stack's: the timed sweep stays scheduled
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

    /**
     * Has {@code d} arm its timer ({@link Deferred#armNow}) on the timer thread within about {@link #DEFER_NANOS}.
     * Allocates nothing but the sweeps' own tasks (one per DEFER, one per SWEEP_AT_DEPTH pushes). {@code d} must not
     * be deferred again before its armNow has run.
     *
     * @throws RejectedExecutionException after {@link #shutdown()}
     */
    void armLater(Deferred d) {
        if (shutdown) {
            throw new RejectedExecutionException("the timer is shut down");
        }
        int stack = ThreadStripes.index(STACKS);
        Deferred head;
        do {
            head = deferred.get(stack);
            d.nextDeferred = head;
            d.depth = head == null ? 1 : head.depth + 1;
        } while (!deferred.compareAndSet(stack, head, d));
        if (d.depth == SWEEP_AT_DEPTH) {
            schedule(sweepNow, 0); // exactly one push sees this depth; the timed sweep still comes for the rest
        }
        if (!sweepScheduled.get() && sweepScheduled.compareAndSet(false, true)) {
            try {
                schedule(sweep, DEFER_NANOS); // the others pushed before it runs ride on this sweep
            } catch (Throwable e) { // NOPMD: give the claim back, or no later push would schedule a sweep
                sweepScheduled.set(false);
                throw e;
            }
        }
    }

    /** The sweep: every holder deferred since the last one, on every stack, arms its timer now. */
    private void armDeferred() {
        for (int stack = 0; stack < STACK_SLOTS; stack += ThreadStripes.SPACING) {
            if (deferred.get(stack) != null) {
                arm(deferred.getAndSet(stack, null));
            }
        }
    }

    /** Lets each holder of a stack taken by a sweep arm its timer. */
    private static void arm(@org.jspecify.annotations.Nullable Deferred d) {
        while (d != null) {
            Deferred next = d.nextDeferred;
            d.nextDeferred = null;
            try {
                d.armNow();
            } catch (Throwable e) { // NOPMD: one holder that fails must not strand the others
                log.error("A Latchkey timer could not be armed; the others are", e);
            }
            d = next;
        }
    }

    /** Stops the thread; pending tasks never run. */
    void shutdown() {
        shutdown = true;
        pending.clear();
        for (int stack = 0; stack < STACK_SLOTS; stack += ThreadStripes.SPACING) {
            deferred.set(stack, null); // the client ends its grants itself
        }
        LockSupport.unpark(thread);
    }

    /** For tests: tasks waiting to run. */
    int pendingCount() {
        return pending.size();
    }

    /** For tests: tasks scheduled so far. */
    long scheduledCount() {
        return sequence.get();
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

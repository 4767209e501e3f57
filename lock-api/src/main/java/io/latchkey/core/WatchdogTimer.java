package io.latchkey.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;

/*
 * The single timer of a Watchdog: when it is armed, lazily or at once, and how, apart from what the watchdog decides
 * when it fires. A base class rather than a field: a watchdog is made per acquisition, and the core's cycle allocates
 * no object for its timer bookkeeping (DeadlineTimer's Deferred is the stack node itself, for the same reason).
 *
 * Concurrency design. `timer` is guarded by the subclass's state lock (the HeldLock's, so that "still active?" and
 * "re-arm" are one step); nothing here does I/O or blocks.
 * - At most one timer is pending. A timer may fire early, never late: the subclass looks at its deadlines again when
 *   it fires and re-arms. So a pending timer that fires no later than the next event is kept rather than cancelled and
 *   re-armed, and a timer more than COARSE_FROM away is put up to GRID earlier, on a grid all watchdogs share, so that
 *   timers falling due together wake the scheduler once.
 * - The first timer is armed lazily when its event is at least DeadlineTimer.DEFER_FROM away (armFirst):
 *   armPending says the scheduler's next sweep (at most about DeadlineTimer.DEFER later) is to arm it; any earlier
 *   reschedule or cancel clears it, so the sweep arms only a grant still waiting for it. A lock released before that
 *   sweep never enters the timer's queue. The first delay is worked out by the sweep, from the TimeSource then.
 *   armPending is volatile so that the sweep passes a released grant without taking its lock.
 */
@NullMarked
abstract class WatchdogTimer extends DeadlineTimer.Deferred implements Runnable {
    /** Timers at least this far away are armed on the shared grid. */
    private static final long COARSE_FROM_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The grid's step: a coarse timer fires up to this much early. */
    private static final long GRID_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private static final VarHandle ARM_PENDING;

    static {
        try {
            ARM_PENDING = MethodHandles.lookup().findVarHandle(WatchdogTimer.class, "armPending", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // guarded by the state lock
    private DeadlineTimer.@Nullable Timeout timer;
    private volatile boolean armPending; // the first timer waits for the scheduler's next sweep (see armFirst)

    /** The client's timer thread. */
    abstract DeadlineTimer scheduler();

    /** The client's monotonic clock. */
    abstract long now();

    /** Whether the grant still stands (its state, not its validity). */
    abstract boolean active();

    /** When the timer is to fire next; Long.MAX_VALUE: no timer. Caller holds the state lock. */
    abstract long nextEvent();

    abstract void lockState();

    abstract void unlockState();

    /** On the scheduler thread: the timer fired; it is no longer pending (see {@link #timerTaken}). */
    abstract void fired();

    /** Something thrown while the timer was armed or fired: the grant can no longer be timed. */
    abstract void timerFailed(Throwable e);

    /**
     * Arms the first timer, at {@code first} ({@link #nextEvent()} now), lazily when it is far away: the scheduler's
     * next sweep arms it. Caller holds the state lock.
     */
    final void armFirst(long first, long nowNanos) {
        if (first != Long.MAX_VALUE && first - nowNanos >= DeadlineTimer.DEFER_FROM_NANOS) {
            ARM_PENDING.set(this, true); // plain: armLater's compare-and-set publishes it to the sweep
            try {
                scheduler().armLater(this);
            } catch (RejectedExecutionException closing) {
                armPending = false; // the client is closing and will end this grant itself
            }
            return;
        }
        reschedule();
    }

    /** On the scheduler thread: the sweep after armFirst; arms the timer unless the grant ended or re-armed meanwhile. */
    @Override
    final void armNow() {
        if (!armPending) {
            return; // released, or re-armed, before the sweep: only ever cleared after armFirst, so no lock is needed
        }
        try {
            lockState();
            try {
                if (armPending) {
                    reschedule();
                }
            } finally {
                unlockState();
            }
        } catch (Throwable e) { // NOPMD: a clock that throws must not leave the grant unwatched
            timerFailed(e);
        }
    }

    /**
     * Arms the single timer at the next event, unless one that fires no later is pending. Caller holds the state lock.
     */
    final void reschedule() {
        if (armPending) {
            armPending = false; // a volatile write only when there is something to clear
        }
        if (!active()) {
            cancelTimer();
            return;
        }
        long next = nextEvent();
        if (next == Long.MAX_VALUE) {
            cancelTimer();
            return; // a session-bound grant without renewal (the backend reports its loss), or the slot watches it
        }
        long delay = next - now();
        DeadlineTimer.Timeout pending = timer;
        if (pending != null) {
            // it fires first and looks again: early is harmless (see the note on top). A timer the thread has
            // already taken is about to look too, once it has the state lock: arming another beside it would leave two
            // timers running for this grant from then on, as its run forgets the one armed here
            if (pending.remainingNanos() <= delay || !pending.cancel()) {
                return;
            }
            timer = null;
        }
        if (delay >= COARSE_FROM_NANOS) {
            delay -= Math.floorMod(next, GRID_NANOS); // on the shared grid
        }
        try {
            timer = scheduler().schedule(this, Math.max(0, delay));
        } catch (RejectedExecutionException closing) {
            timer = null; // the client is closing and will end this grant itself
        }
    }

    /**
     * Cancels the pending timer, if any (a run already under way finds the grant ended). Caller holds the state lock.
     */
    final void cancelTimer() {
        if (armPending) {
            ARM_PENDING.setRelease(this, false); // the sweep needs to see it, not in any order with a later read
        }
        DeadlineTimer.Timeout t = timer;
        if (t != null) {
            t.cancel();
            timer = null;
        }
    }

    /** The fired timer is no longer pending: the next reschedule arms a new one. Caller holds the state lock. */
    final void timerTaken() {
        timer = null;
    }

    /** The timer: runs on the scheduler thread; whatever it throws ends the grant at once. */
    @Override
    public final void run() {
        try {
            fired();
        } catch (Throwable e) { // NOPMD: a timer task that fails must not leave the grant unwatched
            timerFailed(e);
        }
    }
}

package io.latchkey.core;

import io.latchkey.spi.TimeSource;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;

/*
 * The grants whose next background renewal falls due in one slot of RenewalBatcher.SLOT_NANOS, and the watch on their
 * loss deadlines from the slot's start until each renewal is answered. The RenewalBatcher makes a slot, arms the timer
 * that fires it, and queues what close() returns.
 *
 * Concurrency design. Grants are pushed on a lock-free stack (any thread, under the grant's own state lock; nothing
 * here blocks). Firing swaps the stack for a FIRED mark, so every push either lands before the swap, and is taken by
 * it, or fails, and the caller pushes onto a new slot. Each stack node knows its depth, so the fired grants come out as
 * one array made at its size. A slot fires at its start, up to a slot's width before its grants are due (early is
 * harmless). A grant released while it waits in a slot stays there until the slot fires (at most one renew interval)
 * and is dropped by the drain.
 *
 * A slot also watches the loss deadlines of the grants it took over, so that a grant renewed in batches has no timer
 * of its own (the watchdog hands its watch to the slot only when the slot fires before its loss deadline). Until the
 * slot fires, its own start comes first. From then on one timer waits for the earliest loss deadline among them
 * (worked out as they were pushed; a validity only moves later, so it is never late); each grant settles with the slot
 * when its renewal is answered, and the last one to settle cancels that timer. If it fires first (a store call that
 * hangs, a drain that runs late), every grant still unsettled goes back to its own timer, which ends it at its loss
 * deadline exactly as for a single renewal stuck in I/O. A watchdog switches watches under its own state lock, so a
 * grant is watched by exactly one of the two at any moment. fired is written and read on the scheduler thread; the
 * loss timer is armed there before the grants reach the drain, and is volatile because settled() reads it on a worker.
 */
@NullMarked
final class RenewalSlot {
    /** No grants. */
    static final Watchdog[] NONE = {};

    /** One queued next renewal: a node of the slot's stack. */
    private static final class Queued {
        final Watchdog watchdog;
        final boolean watchLoss;
        final long lossDeadlineNanos;
        @Nullable Queued next;
        int depth; // of the stack with this node on top: the fired slot's array is made at its size

        Queued(Watchdog watchdog, boolean watchLoss, long lossDeadlineNanos) {
            this.watchdog = watchdog;
            this.watchLoss = watchLoss;
            this.lossDeadlineNanos = lossDeadlineNanos;
        }
    }

    /**
     * The top of a fired slot's stack: a push that finds it fails. Never read as a grant (the swap returns what was on
     * the stack before it).
     */
    @SuppressWarnings("NullAway") // a mark, not a queued renewal
    private static final Queued FIRED = new Queued(null, false, 0);

    private final long index;
    private final DeadlineTimer scheduler;
    private final TimeSource time;
    private final AtomicReference<@Nullable Queued> top = new AtomicReference<>();
    private final AtomicInteger unsettled = new AtomicInteger();
    private volatile DeadlineTimer.@Nullable Timeout lossTimer;
    private Watchdog[] fired = NONE; // written and read on the scheduler thread; read-only once written

    RenewalSlot(long index, DeadlineTimer scheduler, TimeSource time) {
        this.index = index;
        this.scheduler = scheduler;
        this.time = time;
    }

    /** Which slot this is: its start is index × RenewalBatcher.SLOT_NANOS. */
    long index() {
        return index;
    }

    /**
     * Queues a grant's next renewal here; with {@code watchLoss} the slot also watches its loss deadline once it fires.
     *
     * @return false if the slot has fired: the caller queues it on a new one
     */
    boolean push(Watchdog w, boolean watchLoss, long lossDeadlineNanos) {
        Queued q = new Queued(w, watchLoss, lossDeadlineNanos);
        for (; ; ) {
            Queued head = top.get();
            if (head == FIRED) {
                return false;
            }
            q.next = head;
            q.depth = head == null ? 1 : head.depth + 1;
            if (top.compareAndSet(head, q)) {
                return true;
            }
        }
    }

    /**
     * On the scheduler thread, as the slot fires: takes its grants, and arms one timer for the earliest loss deadline
     * among those it watches (each was worked out as the grant was queued; a validity only moves later).
     */
    Watchdog[] close() {
        Queued first = top.getAndSet(FIRED);
        Watchdog[] grants = first == null ? NONE : new Watchdog[first.depth];
        int at = 0;
        int watched = 0;
        long earliest = 0;
        for (Queued q = first; q != null; q = q.next) {
            grants[at++] = q.watchdog;
            if (q.watchLoss) {
                if (watched == 0 || q.lossDeadlineNanos - earliest < 0) {
                    earliest = q.lossDeadlineNanos;
                }
                watched++;
            }
        }
        fired = grants;
        if (watched > 0) {
            unsettled.set(watched);
            try {
                lossTimer = scheduler.schedule(this::lossDeadlineCame, Math.max(0, earliest - time.nanoTime()));
            } catch (RejectedExecutionException closing) { // NOPMD: a closing client ends its grants itself
            }
        }
        return grants;
    }

    /**
     * On the scheduler thread: a loss deadline came before every renewal was answered; the grants' own timers take
     * over.
     */
    private void lossDeadlineCame() {
        for (Watchdog w : fired) {
            w.slotWatchEnded(this);
        }
    }

    /** A grant this slot watched no longer needs it (its renewal was answered); the last one cancels the timer. */
    void settled() {
        if (unsettled.decrementAndGet() == 0) {
            DeadlineTimer.Timeout t = lossTimer;
            if (t != null) {
                t.cancel();
            }
        }
    }
}

package io.latchkey.core;

import io.latchkey.spi.Grant;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.NullMarked;

/*
 * The background renewals of one client's exclusive grants, sent to a backend that renews many grants in one round
 * trip (LockBackend.renewalBatchSize() > 1): a client holding ten thousand locks then costs its store a few calls per
 * renewal interval instead of ten thousand.
 *
 * Concurrency design. A Watchdog whose renewal falls due puts itself on a lock-free queue (on the scheduler thread,
 * under its own state lock; nothing here blocks). At most one drain runs at a time, on the client's workers: it takes
 * up to a batch of due watchdogs, asks each for its lease, makes one renewAll call, and hands each watchdog its own
 * result, which it applies under its own state lock exactly as after a single renewal. A drain starts GATHER after the
 * first renewal that finds none running, so that the renewals falling due in those milliseconds (locks taken together
 * renew together) share its first call; renewals that fall due while a call is in flight go in the next call of the
 * same drain. GATHER is small beside any renewal interval (a third of the lease by default), and the loss deadline
 * of every grant stays watched on the scheduler while its renewal waits or is in flight (by its own timer, or by its
 * slot: see below), as for a single renewal. The `draining` flag is claimed with a CAS before a drain is scheduled
 * and given back when the queue is found empty; a watchdog queued between that last look and the give-back is picked
 * up by the drain's final check, which schedules another. No lock is held around I/O.
 *
 * Every renewal of an exclusive grant with a batcher falls due on a grid (gridStep: up to an eighth of the renew
 * interval early), the first one too: locks taken at different moments renew together from the start, and a round of
 * renewals costs at most interval / step + 1 drains however the acquisitions were spread.
 *
 * Once renewed here, a grant's next renewal is queued here too (renewAt), in a Slot of SLOT width: one timer per slot
 * instead of one per grant, and the slot's grants go to the same drain together, no gather needed. A slot is made and
 * its timer armed inside the map's own computeIfAbsent; a firing slot takes itself out of the map, then swaps its
 * lock-free stack of grants for a FIRED mark, so a watchdog is pushed either onto a slot that has not fired yet or,
 * once its push fails, onto a new one: none is left in a slot that already fired. The fired slot's grants join the
 * queue as one array (each stack node knows its depth, so the array is made at its size), which drains split into
 * batches. A slot fires at its start, up to SLOT before its grants are due (early is harmless). A grant released while
 * it waits in a slot stays there until the slot fires (at most one renew interval) and is dropped by the drain.
 *
 * A slot also watches the loss deadlines of the grants it took over, so that a grant renewed in batches has no timer
 * of its own (the watchdog takes the slot's watch only when the slot fires before its loss deadline). Until the slot
 * fires, its own start comes first. From then on one timer waits for the earliest loss deadline among them (worked out
 * as they were added; a validity only moves later, so it is never late); each grant settles with the slot when its
 * renewal is answered, and the last one to settle cancels that timer. If it fires first (a store call that hangs, a
 * drain that runs late), every grant still unsettled goes back to its own timer, which ends it at its loss deadline
 * exactly as for a single renewal stuck in I/O. A watchdog switches watches under its own state lock, so a grant is
 * watched by exactly one of the two at any moment.
 *
 * Failures: a RuntimeException from renewAll is an outage for every grant of the batch (each retries as after a failed
 * renew), and a null answer is one for that grant alone; an Error, or an answer of the wrong length, means the batch
 * cannot be trusted, and each of its grants ends at once as RENEWAL_FAILED, as a watchdog that fails does. So does
 * anything else thrown while a batch is handled (a clock, a listener), and a drain that no worker thread could take
 * (one that cannot be created) ends the renewals queued for it: nothing is left queued with no drain to run it.
 */
@NullMarked
final class RenewalBatcher {
    /** How long a drain waits for the renewals that fall due just after the one that started it. */
    static final long GATHER_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(10);
    /** The width of a slot of next renewals. */
    static final long SLOT_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(10);

    /** The finest step of the renewal grid; every step is this times a power of two, so the grids nest. */
    private static final long GRID_BASE_NANOS = SLOT_NANOS;

    private final LockBackend backend;
    private final DeadlineTimer scheduler;
    private final Executor workers;
    private final TimeSource time;
    private final int batchSize;
    /**
     * Renewals due, a fired slot's grants as one element (one queue node and one atomic step per slot, not per grant:
     * at ten thousand held locks the per-grant queue nodes were a tenth of the renewal's CPU), or a single grant.
     */
    private final ConcurrentLinkedQueue<Watchdog[]> due = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final ConcurrentHashMap<Long, Slot> slots = new ConcurrentHashMap<>();
    /** The slot renewAt used last (it may have fired since: a push then fails). */
    private volatile @org.jspecify.annotations.Nullable Slot recentSlot;

    RenewalBatcher(LockBackend backend, DeadlineTimer scheduler, Executor workers, TimeSource time, int batchSize) {
        this.backend = backend;
        this.scheduler = scheduler;
        this.workers = workers;
        this.time = time;
        this.batchSize = batchSize;
    }

    /**
     * The step of the grid that a grant renewed every {@code intervalNanos} renews on: the largest 10 ms times a power
     * of two that is at most an eighth of the interval (none below 80 ms: 1). Rounding each due renewal down to it
     * renews up to an eighth early and leaves 9 to 17 renewal times per interval (the step is more than a sixteenth),
     * so a client's grants cost the store a bounded number of batches per interval however their acquisitions were
     * spread; the grids of different intervals nest, so grants with different intervals still meet on the coarser
     * one's steps.
     */
    static long gridStep(long intervalNanos) {
        long eighth = intervalNanos / 8;
        if (eighth < GRID_BASE_NANOS) {
            return 1;
        }
        return GRID_BASE_NANOS * Long.highestOneBit(eighth / GRID_BASE_NANOS);
    }

    /**
     * Queues a watchdog whose renewal is due.
     *
     * @throws RejectedExecutionException when the client is closing (the watchdog is not queued then)
     */
    void submit(Watchdog w) {
        Watchdog[] one = {w};
        due.add(one);
        try {
            startDrainIfIdle();
        } catch (RejectedExecutionException closing) {
            due.remove(one); // an array equals only itself
            throw closing;
        }
    }

    /**
     * Queues the next renewal of a grant this batcher renewed, due at {@code dueNanos}; with {@code watchLoss} the
     * returned slot also watches the grant's loss deadline, {@code lossDeadlineNanos}, which must come after the due
     * time. Caller holds the watchdog's state lock (nothing here blocks). The slot last used is tried first: a drain
     * queues a whole batch, and its grants mostly share one slot.
     *
     * @throws RejectedExecutionException when the client is closing (the watchdog is not queued then)
     */
    Slot renewAt(Watchdog w, long dueNanos, boolean watchLoss, long lossDeadlineNanos) {
        long index = Math.floorDiv(dueNanos, SLOT_NANOS);
        Queued q = new Queued(w, watchLoss, lossDeadlineNanos);
        Slot slot = recentSlot;
        if (slot != null && slot.index == index && slot.push(q)) {
            return slot;
        }
        for (; ; ) {
            slot = slots.computeIfAbsent(index, this::openSlot);
            if (slot.push(q)) {
                recentSlot = slot;
                return slot;
            }
            // it fired between the look-up and the push, and fire took it out of the map first: the next look makes
            // a new one
        }
    }

    /** A new slot, its timer armed (inside the map's computeIfAbsent, so each slot has exactly one). */
    private Slot openSlot(long index) {
        Slot slot = new Slot(index);
        scheduler.schedule(() -> fire(slot), Math.max(0, index * SLOT_NANOS - time.nanoTime()));
        return slot;
    }

    /** On the scheduler thread: a slot's renewals are due; they join the queue, and a drain starts if none runs. */
    private void fire(Slot slot) {
        slots.remove(slot.index, slot); // first: a push that then finds the slot fired looks in the map again
        Watchdog[] grants = slot.close();
        if (grants.length > 0) {
            due.add(grants);
        }
        if (draining.compareAndSet(false, true)) {
            startDrain();
        }
    }

    /** One queued next renewal: a node of its slot's stack. */
    private static final class Queued {
        final Watchdog watchdog;
        final boolean watchLoss;
        final long lossDeadlineNanos;
        @org.jspecify.annotations.Nullable Queued next;
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

    private static final Watchdog[] NONE = {};

    /**
     * The grants whose next renewal falls due in one SLOT, and the watch on their loss deadlines from the slot's start
     * until each renewal is answered (see the note on top). Grants are pushed on a lock-free stack; firing swaps the
     * stack for FIRED, so every push either lands before the swap (and is taken by it) or fails.
     */
    final class Slot {
        private final long index;
        private final AtomicReference<@org.jspecify.annotations.Nullable Queued> top = new AtomicReference<>();
        private final AtomicInteger unsettled = new AtomicInteger();
        private volatile DeadlineTimer.@org.jspecify.annotations.Nullable Timeout lossTimer;
        private Watchdog[] fired = NONE; // written and read on the scheduler thread; read-only once written

        private Slot(long index) {
            this.index = index;
        }

        private boolean push(Queued q) {
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
         * On the scheduler thread, as the slot fires: takes its grants, and arms one timer for the earliest loss
         * deadline among those it watches (each was worked out as the grant was queued; a validity only moves later).
         */
        private Watchdog[] close() {
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

    private void startDrainIfIdle() {
        if (draining.compareAndSet(false, true)) {
            try {
                scheduler.schedule(this::startDrain, GATHER_NANOS);
            } catch (RejectedExecutionException closing) {
                draining.set(false);
                throw closing;
            }
        }
    }

    /**
     * On the scheduler thread: hands the drain to a worker (the scheduler never does I/O). If no worker can take it
     * (the client is closing, or no thread can be created), the queued renewals cannot run: while the client closes
     * it ends the grants itself; otherwise each queued grant ends at once, as a watchdog that fails does, rather than
     * wait unrenewed for its validity to run out.
     */
    private void startDrain() {
        try {
            workers.execute(this::drain);
        } catch (Throwable e) { // NOPMD: a failed hand-off must not leave the queue owned by no drain
            List<Watchdog> stranded = new ArrayList<>();
            for (Watchdog[] ws = due.poll(); ws != null; ws = due.poll()) {
                stranded.addAll(java.util.Arrays.asList(ws));
            }
            draining.set(false);
            if (!(e instanceof RejectedExecutionException)) {
                endAtOnce(stranded, e);
            }
        }
    }

    private void drain() {
        Watchdog[] taken = NONE; // the queue element being split into batches, and how far
        int next = 0;
        try {
            List<Watchdog> batch = new ArrayList<>(Math.min(batchSize, 1024));
            for (; ; ) {
                batch.clear();
                while (batch.size() < batchSize) {
                    if (next == taken.length) {
                        Watchdog[] more = due.poll();
                        if (more == null) {
                            break;
                        }
                        taken = more;
                        next = 0;
                    }
                    batch.add(taken[next++]);
                }
                if (batch.isEmpty()) {
                    break;
                }
                try {
                    renew(batch);
                } catch (Throwable e) { // NOPMD: a clock or a listener that throws: the batch's grants end now
                    endAtOnce(batch, e);
                }
            }
        } finally {
            if (next < taken.length) { // only if something escaped the loop above: left for the next drain
                due.add(java.util.Arrays.copyOfRange(taken, next, taken.length));
            }
            draining.set(false);
            if (!due.isEmpty()) { // queued after the last poll, before the flag was given back
                try {
                    startDrainIfIdle();
                } catch (RejectedExecutionException closing) { // NOPMD: the client ends its grants itself
                    due.clear();
                }
            }
        }
    }

    private void renew(List<Watchdog> batch) {
        long start = time.nanoTime();
        List<Watchdog> asking = new ArrayList<>(batch.size());
        List<Grant> grants = new ArrayList<>(batch.size());
        List<Duration> leases = new ArrayList<>(batch.size());
        for (Watchdog w : batch) {
            try {
                Duration lease = w.backgroundLease(start);
                if (lease != null) {
                    asking.add(w);
                    grants.add(w.grant());
                    leases.add(lease);
                }
            } catch (Throwable e) { // NOPMD: as for a single renewal, a watchdog that fails ends its grant
                endAtOnce(List.of(w), e);
            }
        }
        if (asking.isEmpty()) {
            return;
        }
        List<@org.jspecify.annotations.Nullable RenewResult> results;
        try {
            results = backend.renewAll(grants, leases);
        } catch (RuntimeException outage) {
            for (Watchdog w : asking) {
                failed(w, outage);
            }
            return;
        } catch (Error e) {
            endAtOnce(asking, e);
            return;
        }
        if (results == null || results.size() != asking.size()) {
            endAtOnce(asking, new IllegalStateException(backend.description() + " answered "
                    + (results == null ? "null" : results.size() + " results") + " to a batch of " + asking.size()
                    + " renewals"));
            return;
        }
        for (int i = 0; i < asking.size(); i++) {
            Watchdog w = asking.get(i);
            RenewResult result = results.get(i);
            if (result == null) { // the store could not decide this one: an outage for it alone
                failed(w, new io.latchkey.BackendUnavailableException(
                        backend.description() + " could not decide the renewal of lock '" + w.grant().name()
                                + "' in a batch of " + asking.size(),
                        w.grant().name(),
                        backend.description(),
                        null));
                continue;
            }
            try {
                w.backgroundRenewed(result, start, leases.get(i));
            } catch (Throwable e) { // NOPMD: see above
                endAtOnce(List.of(w), e);
            }
        }
    }

    /** A renewal the store could not make: retried until its validity runs out, as a failed renew is. */
    private static void failed(Watchdog w, RuntimeException outage) {
        try {
            w.backgroundRenewalFailed(outage);
        } catch (Throwable e) { // NOPMD: a listener or clock that throws ends the grant, as for a single renewal
            endAtOnce(List.of(w), e);
        }
    }

    /** Ends each grant at once, each on its own: one whose loss reporting throws does not keep the others alive. */
    private static void endAtOnce(List<Watchdog> watchdogs, Throwable cause) {
        for (Watchdog w : watchdogs) {
            try {
                w.markLostAtOnce("background renewal", cause);
            } catch (Throwable ignored) { // NOPMD: markLost moved the state to LOST before the listener that threw
            }
        }
    }
}

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
 * Once renewed here, a grant's next renewal is queued here too (renewAt), in a RenewalSlot of SLOT width: one timer
 * per slot instead of one per grant, and the slot's grants go to the same drain together, no gather needed; the slot
 * also watches their loss deadlines meanwhile (see RenewalSlot). A slot is made and its timer armed inside the map's
 * own computeIfAbsent; a firing slot takes itself out of the map before it closes, so a watchdog is pushed either onto
 * a slot that has not fired yet or, once its push fails, onto a new one: none is left in a slot that already fired.
 * The fired slot's grants join the queue as one array, which drains split into batches.
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
     * Renewals due, a fired slot's grants as one element (one queue node and one atomic step per slot, not per grant;
     * at ten thousand held locks the queueing was about 4 % of the renewal's CPU, and removing it measured inside the
     * noise), or a single grant.
     */
    private final ConcurrentLinkedQueue<Watchdog[]> due = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final ConcurrentHashMap<Long, RenewalSlot> slots = new ConcurrentHashMap<>();
    /** The slot renewAt used last (it may have fired since: a push then fails). */
    private volatile @org.jspecify.annotations.Nullable RenewalSlot recentSlot;

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
    RenewalSlot renewAt(Watchdog w, long dueNanos, boolean watchLoss, long lossDeadlineNanos) {
        long index = Math.floorDiv(dueNanos, SLOT_NANOS);
        RenewalSlot slot = recentSlot;
        if (slot != null && slot.index() == index && slot.push(w, watchLoss, lossDeadlineNanos)) {
            return slot;
        }
        for (; ; ) {
            slot = slots.computeIfAbsent(index, this::openSlot);
            if (slot.push(w, watchLoss, lossDeadlineNanos)) {
                recentSlot = slot;
                return slot;
            }
            // it fired between the look-up and the push, and fire took it out of the map first: the next look makes
            // a new one
        }
    }

    /** A new slot, its timer armed (inside the map's computeIfAbsent, so each slot has exactly one). */
    private RenewalSlot openSlot(long index) {
        RenewalSlot slot = new RenewalSlot(index, scheduler, time);
        scheduler.schedule(() -> fire(slot), Math.max(0, index * SLOT_NANOS - time.nanoTime()));
        return slot;
    }

    /** On the scheduler thread: a slot's renewals are due; they join the queue, and a drain starts if none runs. */
    private void fire(RenewalSlot slot) {
        slots.remove(slot.index(), slot); // first: a push that then finds the slot fired looks in the map again
        Watchdog[] grants = slot.close();
        if (grants.length > 0) {
            due.add(grants);
        }
        if (draining.compareAndSet(false, true)) {
            startDrain();
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
        Watchdog[] taken = RenewalSlot.NONE; // the queue element being split into batches, and how far
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

package io.latchkey.core;

import io.latchkey.LockLoss;
import io.latchkey.spi.Deadlines;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.RenewResult;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The validity of one HeldLock: renewals (the user's and the background ones), the single timer, and the
 * decision that the grant is lost because its validity ran out or the watchdog itself failed.
 *
 * Concurrency design. The fields below are guarded by the HeldLock's state lock (the same lock that guards its
 * state, so that "still ACTIVE?" and "re-arm the timer" are one step); no I/O runs while it is held. The
 * watchdog never moves the grant's state itself: it ends a grant only through HeldLock.markLost, which owns
 * that transition and cancels the timer here.
 * - At most one timer is pending; when and how it is armed (lazily the first time, on a shared grid, kept when it
 *   fires no later) is WatchdogTimer's part. It fires at the earlier of "renewal due" and "validity about to run out"
 *   (validUntil minus a guard). The scheduler thread never does I/O: a due renewal is handed to a worker, and the
 *   loss deadline stays armed while that renewal is in flight, so a renewal stuck in I/O cannot delay the loss report
 *   past validUntil.
 * - With a RenewalBatcher, every renewal of an exclusive grant falls due on the batcher's grid (RenewalBatcher.gridStep,
 *   up to an eighth of the interval early), so that grants taken at different moments still renew together: a
 *   renewal interval costs a bounded number of batches however the acquisitions were spread.
 * - With a RenewalBatcher, a grant it renewed is queued there for its next renewal (renewalInFlight stays set:
 *   the batcher owns it), in a slot that fires before the loss deadline; the slot then watches that deadline too
 *   (slotWatch), and this grant has no timer of its own until the slot's watch ends: when its renewal is answered,
 *   or when the slot's loss timer fires first (a batch that hangs), and then its own timer takes over. slotWatch
 *   changes only under the state lock, and whenever it is set renewalInFlight is too. A renewal the batcher could not
 *   make goes back to this grant's own timer, which retries it.
 * - validUntilNanos only moves forward (max of concurrent renewals, each counted from its own start); it is
 *   volatile so that the HeldLock's queries read it without the lock.
 * - Nothing that goes wrong inside the watchdog may delay the loss signal. A RuntimeException from the
 *   store's renew is an outage: retried until validity runs out, then RENEWAL_FAILED with it as the cause.
 *   Any other Throwable in a timer task or a background renewal (an Error from the store call, a TimeSource
 *   that throws, a bug) ends the grant at once as RENEWAL_FAILED with that Throwable as the cause: the
 *   watchdog can no longer be trusted to keep the grant or to time its end. An Error from a renewal the user
 *   asked for does the same before it reaches the user.
 */
@NullMarked
final class Watchdog extends WatchdogTimer {

    // HeldLock's logger, as before the watchdog had a class of its own: users' logging configurations name it
    private static final Logger log = LoggerFactory.getLogger(HeldLock.class);

    private final HeldLock held;
    private final long maxHoldEndNanos;
    private final long guardNanos;
    /** Renewed by the client's RenewalBatcher: an exclusive grant on a backend that renews many in one call. */
    private final boolean batched;

    private volatile long validUntilNanos;

    private static final VarHandle VALID_UNTIL;

    static {
        try {
            VALID_UNTIL = MethodHandles.lookup().findVarHandle(Watchdog.class, "validUntilNanos", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // guarded by the HeldLock's state lock
    private boolean renewalInFlight;
    private @Nullable RenewalSlot slotWatch; // the batcher's slot watches the loss deadline (see the note)
    private long nextRenewNanos;
    private @Nullable Throwable lastRenewalFailure;
    private boolean endsAtMaxHold; // the last renewal was cut to maxHold, or no renewal fits any more

    /** {@code validUntilNanos}: the grant's validity as the core bounds it (ValidityClamp), not the reported one. */
    Watchdog(HeldLock held, long startNanos, long validUntilNanos) {
        this.held = held;
        this.batched = held.client.renewals != null && held.grant.kind().type() == GrantKind.Type.EXCLUSIVE;
        // a plain write: no other thread sees this watchdog before its grant is published (the registry's volatile
        // write, or the timer's compare-and-set), and a volatile one would cost a full fence per acquisition
        VALID_UNTIL.set(this, validUntilNanos);
        Duration maxHold = held.options.maxHold().orElse(null); // no lambda: a watchdog is made per acquisition
        this.maxHoldEndNanos = maxHold == null ? Long.MAX_VALUE : Deadlines.saturatedAdd(startNanos, maxHold.toNanos());
        long lease = held.options.lease().toNanos();
        // report a failed renewal this long before validity ends: a timer thread on a loaded machine runs late
        this.guardNanos =
                Math.min(TimeUnit.MILLISECONDS.toNanos(500), Math.max(TimeUnit.MILLISECONDS.toNanos(1), lease / 10));
    }

    /** Until when the grant is valid (monotonic); Long.MAX_VALUE: bound to a session, no deadline. */
    long validUntilNanos() {
        return validUntilNanos;
    }

    /** The client's monotonic clock (the TimeSource's nanoTime). */
    @Override
    long now() {
        return held.client.time.nanoTime();
    }

    @Override
    DeadlineTimer scheduler() {
        return held.client.executors.scheduler;
    }

    @Override
    boolean active() {
        return held.isActive();
    }

    @Override
    void lockState() {
        held.lockState();
    }

    @Override
    void unlockState() {
        held.unlockState();
    }

    @Override
    void timerFailed(Throwable e) {
        markLostAtOnce("the watchdog", e);
    }

    /** Whether the validity has not run out yet (the grant's state aside). */
    boolean withinValidity() {
        long v = validUntilNanos;
        // Long.MAX_VALUE: bound to a session, no deadline (comparing would overflow for a negative nanoTime)
        return v == Long.MAX_VALUE || now() - v < 0;
    }

    /**
     * Arms the first timer, lazily when its event is far away (WatchdogTimer.armFirst). Caller holds the state lock.
     */
    void start(long startNanos, long nowNanos) {
        nextRenewNanos = RenewalTimes.next(held.options, startNanos, validUntilNanos, batched);
        armFirst(nextEvent(), nowNanos);
    }

    // ---------------------------------------------------------------- renewal

    /** A renewal the user asked for, on the user's thread. */
    boolean renew(Duration lease) {
        if (!held.isActive()) {
            return false;
        }
        long start = now();
        Duration capped = RenewalTimes.capByMaxHold(lease, start, maxHoldEndNanos);
        if (capped == null) {
            return false; // max hold reached: the loss timer reports EXPIRED
        }
        RenewResult result;
        try {
            result = held.client.backend.renew(held.grant, capped);
        } catch (Error e) {
            markLostAtOnce("renewal", e);
            throw e;
        } catch (RuntimeException e) {
            held.client.listeners.renewalFailed(held.name(), held.grant.fencingToken(), e);
            throw e;
        }
        return applyRenewal(result, start, capped, false, RenewalTimes.isCut(capped, lease), false);
    }

    /** Runs on a worker: one background renewal; whatever it throws ends the grant at once (see the note on top). */
    private void renewInBackground() {
        try {
            renewOnce();
        } catch (Throwable e) { // NOPMD: an Error or a broken clock must end the grant, not a worker thread
            markLostAtOnce("background renewal", e);
        }
    }

    private void renewOnce() {
        long start = now();
        Duration lease = backgroundLease(start);
        if (lease == null) {
            return;
        }
        RenewResult result;
        try {
            result = held.client.backend.renew(held.grant, lease);
        } catch (RuntimeException e) { // an outage: retried until validity runs out (Errors end the grant at once)
            backgroundRenewalFailed(e);
            return;
        }
        applyRenewal(result, start, lease, true, RenewalTimes.isCut(lease, held.options.lease()), false);
    }

    // ------------------------------------------------ the steps of a background renewal (RenewalBatcher's too)

    /** The grant a background renewal renews. */
    io.latchkey.spi.Grant grant() {
        return held.grant;
    }

    /**
     * The lease a background renewal starting at {@code start} asks for; null when the grant has ended or max hold
     * leaves none, and then the renewal is over (for max hold, the loss timer reports EXPIRED).
     */
    @Nullable Duration backgroundLease(long start) {
        if (!held.isActive()) { // released or lost while its renewal waited: nothing to renew
            backgroundRenewalDropped();
            return null;
        }
        Duration lease = RenewalTimes.capByMaxHold(held.options.lease(), start, maxHoldEndNanos);
        if (lease == null) {
            held.lockState();
            try {
                renewalInFlight = false;
                endSlotWatch();
                endsAtMaxHold = true;
                reschedule();
            } finally {
                held.unlockState();
            }
        }
        return lease;
    }

    /** The store could not be asked: retried until validity runs out. */
    void backgroundRenewalFailed(RuntimeException e) {
        log.debug(
                "Renewal of lock '{}' on {} failed; retrying until its validity runs out",
                held.name(),
                held.client.backend(),
                e);
        held.lockState();
        try {
            renewalInFlight = false;
            endSlotWatch();
            lastRenewalFailure = e;
            nextRenewNanos = Deadlines.saturatedAdd(now(), RenewalTimes.retryIntervalNanos(held.options));
            reschedule();
        } finally {
            held.unlockState();
        }
        held.client.listeners.renewalFailed(held.name(), held.grant.fencingToken(), e);
    }

    /**
     * The store answered the batched renewal that started at {@code start} and asked for {@code lease}; a grant it
     * keeps is queued with the batcher for its next renewal.
     */
    void backgroundRenewed(RenewResult result, long start, Duration lease) {
        applyRenewal(result, start, lease, true, RenewalTimes.isCut(lease, held.options.lease()), true);
    }

    /** The renewal was never sent: the grant ended meanwhile, or the client is closing and ends it itself. */
    void backgroundRenewalDropped() {
        held.lockState();
        try {
            renewalInFlight = false;
            endSlotWatch();
        } finally {
            held.unlockState();
        }
    }

    private boolean applyRenewal(
            RenewResult result,
            long start,
            Duration lease,
            boolean background,
            boolean cappedByMaxHold,
            boolean batched) {
        if (!result.held()) {
            if (background) {
                held.lockState();
                try {
                    renewalInFlight = false;
                    endSlotWatch();
                } finally {
                    held.unlockState();
                }
            }
            LockLoss.Reason reason = result.reason();
            if (reason == null) {
                reason = withinValidity() ? LockLoss.Reason.RELEASED_BY_ADMIN : LockLoss.Reason.EXPIRED;
            }
            held.markLost(reason, "the store no longer holds this grant (renewal refused)", null);
            return false;
        }
        boolean active;
        held.lockState();
        try {
            if (background) {
                renewalInFlight = false;
                endSlotWatch();
            }
            active = held.isActive();
            if (active) {
                long current = validUntilNanos;
                long renewed = ValidityClamp.clamp(result.validUntilNanos(), start, lease);
                if (current != Long.MAX_VALUE && (renewed == Long.MAX_VALUE || renewed - current > 0)) {
                    validUntilNanos = renewed;
                }
                lastRenewalFailure = null;
                endsAtMaxHold = cappedByMaxHold;
                long next = nextRenewNanos = RenewalTimes.next(held.options, start, validUntilNanos, batched);
                if (batched && held.options.autoRenew() && maxHoldEndNanos - next > 0) {
                    queueNextRenewal(next);
                }
                reschedule();
            }
        } finally {
            held.unlockState();
        }
        if (active) {
            held.client.listeners.renewed(held.name(), held.grant.fencingToken());
        }
        return active;
    }

    /**
     * Hands the next renewal to the batcher, which then owns it (see the note on top); its slot also watches the loss
     * deadline when it fires before it. Caller holds the state lock (the batcher does not block).
     */
    private void queueNextRenewal(long at) {
        RenewalBatcher batcher = held.client.renewals;
        if (batcher == null) {
            return;
        }
        long lossDeadline = lossDeadline();
        boolean watch = lossDeadline != Long.MAX_VALUE && at - lossDeadline < 0;
        try {
            RenewalSlot slot = batcher.renewAt(this, at, watch, lossDeadline);
            renewalInFlight = true;
            if (watch) {
                slotWatch = slot;
            }
        } catch (RejectedExecutionException closing) { // NOPMD: the client is closing and ends this grant itself
        }
    }

    /** The slot no longer watches the loss deadline: this grant's own timer does again. Caller holds the state lock. */
    private void endSlotWatch() {
        RenewalSlot slot = slotWatch;
        if (slot != null) {
            slotWatch = null;
            slot.settled();
        }
    }

    /**
     * On the scheduler thread: the slot's loss timer fired before this grant's renewal was answered (a batch that
     * hangs, a drain that runs late): this grant's own timer watches its loss deadline again.
     */
    void slotWatchEnded(RenewalSlot slot) {
        try {
            held.lockState();
            try {
                if (slotWatch == slot) {
                    slotWatch = null;
                    reschedule();
                }
            } finally {
                held.unlockState();
            }
        } catch (Throwable e) { // NOPMD: a clock that throws must not leave the grant unwatched
            markLostAtOnce("the watchdog", e);
        }
    }

    // ---------------------------------------------------------------- the timer

    /**
     * The earlier of the loss deadline, unless the batcher's slot watches it, and the renewal this watchdog's own timer
     * makes. Caller holds the state lock.
     */
    @Override
    long nextEvent() {
        long next = slotWatch != null ? Long.MAX_VALUE : lossDeadline();
        if (held.options.autoRenew()
                && !renewalInFlight
                && maxHoldEndNanos - nextRenewNanos > 0
                && nextRenewNanos - next < 0) {
            next = nextRenewNanos;
        }
        return next;
    }

    private long lossDeadline() {
        long v = validUntilNanos;
        return v == Long.MAX_VALUE ? Long.MAX_VALUE : v - guardNanos;
    }

    /** The timer fired, on the scheduler thread: decides, never does I/O. */
    @Override
    void fired() {
        LockLoss.Reason lossReason;
        String detail;
        Throwable cause = null;
        held.lockState();
        try {
            timerTaken();
            if (!held.isActive()) {
                return;
            }
            long now = now();
            if (now - lossDeadline() < 0) {
                if (held.options.autoRenew()
                        && !renewalInFlight
                        && now - nextRenewNanos >= 0
                        && maxHoldEndNanos - now > 0) {
                    renewalInFlight = true;
                    try {
                        if (batched) {
                            held.client.renewals.submit(this); // with the others due now, in one round trip
                        } else {
                            held.client.executors.workers.execute(this::renewInBackground);
                        }
                    } catch (RejectedExecutionException closing) {
                        renewalInFlight = false;
                        return;
                    }
                }
                reschedule();
                return;
            }
            LossReasons.Loss loss = overdueLoss(now);
            lossReason = loss.reason();
            detail = loss.detail();
            cause = loss.cause();
        } finally {
            held.unlockState();
        }
        held.markLost(lossReason, detail, cause);
    }

    /** The loss of a grant whose validity ran out, as of {@code now}. Caller holds the state lock. */
    private LossReasons.Loss overdueLoss(long now) {
        // a backend's drift makes a capped grant end a little before maxHold itself, hence the flag
        boolean maxHoldReached = endsAtMaxHold || now - maxHoldEndNanos >= -guardNanos;
        return LossReasons.overdue(held.options, maxHoldReached, lastRenewalFailure);
    }

    /**
     * On a release: whether the validity had already run out and the grant was therefore reported lost instead. The
     * timer reports that by itself, but a process that was paused (SIGSTOP, a long GC pause, a frozen VM) resumes
     * with its timer overdue, and its owner may call release before the timer thread runs: the loss must be
     * reported all the same, and the release must not claim a grant the store may have given to another.
     */
    boolean lostBeforeRelease() {
        if (withinValidity()) {
            return false;
        }
        LossReasons.Loss loss;
        held.lockState();
        try {
            if (!held.isActive()) {
                return false;
            }
            loss = overdueLoss(now());
        } finally {
            held.unlockState();
        }
        return held.markLost(loss.reason(), loss.detail() + " (found when the lock was released)", loss.cause());
    }

    /** A failure inside the watchdog: the grant cannot be kept or timed any more, so it ends now, with the cause. */
    void markLostAtOnce(String where, Throwable failure) {
        if (held.markLost(
                LockLoss.Reason.RENEWAL_FAILED,
                LossReasons.watchdogFailed(where, failure),
                failure)) {
            log.debug("Why lock '{}' (token {}) was reported lost", held.name(), held.grant.fencingToken(), failure);
        }
    }
}

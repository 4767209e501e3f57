package io.latchkey.core;

import io.latchkey.Durations;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.spi.Grant;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.TimeSource;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * One grant held by this client, from acquisition to release or loss.
 *
 * Concurrency design. Three parties touch a HeldLock: the user's threads (renew, release), the client's
 * single scheduler thread (timers), and worker threads (background renewals, store-reported losses).
 * - `state` moves once, ACTIVE -> RELEASED or ACTIVE -> LOST, under `stateLock`; whoever makes that move
 *   owns the clean-up (cancel the timer, leave the local gate, forget the grant), so it happens exactly once.
 * - `stateLock` guards only bookkeeping (timer, renewal flags); no I/O ever runs while it is held, so a
 *   store that hangs cannot stall timers, other locks, or virtual threads.
 * - At most one timer is pending. It fires at the earlier of "renewal due" and "validity about to run
 *   out" (validUntil minus a guard). The scheduler thread never does I/O: a due renewal is handed to a
 *   worker, and the loss deadline stays armed while that renewal is in flight, so a renewal stuck in I/O
 *   cannot delay the loss report past validUntil.
 * - validUntilNanos only moves forward (max of concurrent renewals, each counted from its own start).
 * - The lost() future is created lazily (most grants are never lost); `loss` is written before the future
 *   is read, and the future before `loss` is read, so one of the two sides always completes it.
 * - Nothing that goes wrong inside the watchdog may delay the loss signal. A RuntimeException from the
 *   store's renew is an outage: retried until validity runs out, then RENEWAL_FAILED with it as the cause.
 *   Any other Throwable in a timer task or a background renewal (an Error from the store call, a TimeSource
 *   that throws, a bug) ends the grant at once as RENEWAL_FAILED with that Throwable as the cause: the
 *   watchdog can no longer be trusted to keep the grant or to time its end. An Error from a renewal the user
 *   asked for does the same before it reaches the user.
 * - Once markLost has made the transition, every later step (forget, leave the gate, complete the future,
 *   log, listeners, best-effort release) runs even if an earlier one throws.
 * - No wall clock on the acquire, renewal or loss path: validity is monotonic (time.nanoTime()); an Instant
 *   is for display only. acquiredAt and validUntil are computed when asked for; LockLoss.at is read through
 *   WallClock, which cannot fail.
 */
final class HeldLock {
    private static final Logger log = LoggerFactory.getLogger(HeldLock.class);
    private static final VarHandle LOST_FUTURE;

    static {
        try {
            LOST_FUTURE = MethodHandles.lookup().findVarHandle(HeldLock.class, "lostFuture", CompletableFuture.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int ACTIVE = 0;
    private static final int RELEASED = 1;
    private static final int LOST = 2;

    final CoreLockClient client;
    final Grant grant;
    final LockOptions options;
    final Thread reentrantOwner; // null unless PER_THREAD
    final CoreHandle primary;

    private final LocalGates.Gate gate;
    private final TimeSource time;
    private final long startNanos;
    private final long grantedNanos;
    private final java.util.concurrent.atomic.AtomicReference<Instant> acquiredAt = new java.util.concurrent.atomic.AtomicReference<>();
    private final long maxHoldEndNanos;
    private final long guardNanos;
    private final AtomicInteger holds = new AtomicInteger(1);
    private final ReentrantLock stateLock = new ReentrantLock();

    private volatile int state = ACTIVE;
    private volatile long validUntilNanos;
    private volatile LockLoss loss;
    @SuppressWarnings("unused") // accessed through LOST_FUTURE
    private volatile CompletableFuture<LockLoss> lostFuture;

    // guarded by stateLock
    private DeadlineTimer.Timeout timer;
    private boolean renewalInFlight;
    private long nextRenewNanos;
    private Throwable lastRenewalFailure;
    private boolean endsAtMaxHold; // the last renewal was cut to maxHold, or no renewal fits any more

    HeldLock(CoreLockClient client, Grant grant, LockOptions options, LocalGates.Gate gate, long startNanos,
             Thread reentrantOwner) {
        this.client = client;
        this.grant = grant;
        this.options = options;
        this.gate = gate;
        this.time = client.time;
        this.startNanos = startNanos;
        this.grantedNanos = time.nanoTime();
        this.reentrantOwner = reentrantOwner;
        this.validUntilNanos = grant.validUntilNanos();
        this.maxHoldEndNanos = options.maxHold().map(d -> saturatedAdd(startNanos, d.toNanos())).orElse(Long.MAX_VALUE);
        long lease = options.lease().toNanos();
        // report a failed renewal this long before validity ends: a timer thread on a loaded machine runs late
        this.guardNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(500), Math.max(TimeUnit.MILLISECONDS.toNanos(1), lease / 10));
        this.primary = new CoreHandle(this);
    }

    /** Arms the watchdog; called once the grant is registered with the client. */
    void start() {
        stateLock.lock();
        try {
            nextRenewNanos = nextRenewal(startNanos, validUntilNanos);
            reschedule();
        } finally {
            stateLock.unlock();
        }
    }

    // ---------------------------------------------------------------- queries

    String name() {
        return grant.name();
    }

    boolean isActive() {
        return state == ACTIVE;
    }

    boolean isValid() {
        long v = validUntilNanos;
        // Long.MAX_VALUE: bound to a session, no deadline (comparing would overflow for a negative nanoTime)
        return state == ACTIVE && (v == Long.MAX_VALUE || time.nanoTime() - v < 0);
    }

    Duration remaining() {
        if (state != ACTIVE) {
            return Duration.ZERO;
        }
        long v = validUntilNanos;
        if (v == Long.MAX_VALUE) {
            return Durations.MAX_WAIT;
        }
        long left = v - time.nanoTime();
        return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
    }

    /** When this grant was made, on the wall clock: computed on first request (display only), then fixed. */
    Instant acquiredAt() {
        Instant a = acquiredAt.get();
        if (a == null) {
            Instant now = time.now();
            acquiredAt.compareAndSet(null, now.minusNanos(time.nanoTime() - grantedNanos));
            a = acquiredAt.get();
        }
        return a;
    }

    /** Until when the grant is valid, on the wall clock (display only; validity itself is monotonic). */
    Instant validUntil() {
        long v = validUntilNanos;
        if (v == Long.MAX_VALUE) {
            return Instant.MAX;
        }
        return time.now().plusNanos(v - time.nanoTime());
    }

    boolean ownedBy(String owner) {
        return grant.owner().equals(owner);
    }

    // ---------------------------------------------------------------- reentrancy

    /** Adds a reentrant hold if still active; the grant is released in the store when the last hold goes. */
    boolean addHold() {
        for (;;) {
            int h = holds.get();
            if (h <= 0 || state != ACTIVE) {
                return false;
            }
            if (holds.compareAndSet(h, h + 1)) {
                return true;
            }
        }
    }

    boolean releaseHold() {
        if (holds.decrementAndGet() > 0) {
            return state == ACTIVE;
        }
        return releaseInStore();
    }

    // ---------------------------------------------------------------- release

    private boolean releaseInStore() {
        stateLock.lock();
        try {
            if (state != ACTIVE) {
                return false;
            }
            state = RELEASED;
            cancelTimer();
        } finally {
            stateLock.unlock();
        }
        client.forget(this);
        try {
            boolean held = client.backend.release(grant);
            client.listeners.released(name(), grant.fencingToken(), time.nanoTime() - startNanos);
            return held;
        } finally {
            leaveGate();
        }
    }

    // ---------------------------------------------------------------- renewal

    boolean renew(Duration lease) {
        if (state != ACTIVE) {
            return false;
        }
        long start = time.nanoTime();
        Duration capped = capByMaxHold(lease, start);
        if (capped == null) {
            return false; // max hold reached: the loss timer reports EXPIRED
        }
        RenewResult result;
        try {
            result = client.backend.renew(grant, capped);
        } catch (Error e) {
            markLostAtOnce("renewal", e);
            throw e;
        }
        return applyRenewal(result, start, false, capped != lease);
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
        long start = time.nanoTime();
        Duration lease = capByMaxHold(options.lease(), start);
        if (lease == null) {
            stateLock.lock();
            try {
                renewalInFlight = false;
                endsAtMaxHold = true;
                reschedule();
            } finally {
                stateLock.unlock();
            }
            return;
        }
        RenewResult result;
        try {
            result = client.backend.renew(grant, lease);
        } catch (RuntimeException e) { // an outage: retried until validity runs out (Errors end the grant at once)
            log.debug("Renewal of lock '{}' on {} failed; retrying until its validity runs out", name(), client.backend(), e);
            stateLock.lock();
            try {
                renewalInFlight = false;
                lastRenewalFailure = e;
                nextRenewNanos = saturatedAdd(time.nanoTime(), retryIntervalNanos());
                reschedule();
            } finally {
                stateLock.unlock();
            }
            return;
        }
        applyRenewal(result, start, true, lease != options.lease());
    }

    private boolean applyRenewal(RenewResult result, long start, boolean background, boolean cappedByMaxHold) {
        if (!result.held()) {
            if (background) {
                stateLock.lock();
                try {
                    renewalInFlight = false;
                } finally {
                    stateLock.unlock();
                }
            }
            LockLoss.Reason reason = result.reason();
            if (reason == null) {
                long v = validUntilNanos;
                boolean stillValid = v == Long.MAX_VALUE || time.nanoTime() - v < 0;
                reason = stillValid ? LockLoss.Reason.RELEASED_BY_ADMIN : LockLoss.Reason.EXPIRED;
            }
            markLost(reason, "the store no longer holds this grant (renewal refused)", null);
            return false;
        }
        boolean active;
        stateLock.lock();
        try {
            if (background) {
                renewalInFlight = false;
            }
            active = state == ACTIVE;
            if (active) {
                long current = validUntilNanos;
                long renewed = result.validUntilNanos();
                if (current != Long.MAX_VALUE && (renewed == Long.MAX_VALUE || renewed - current > 0)) {
                    validUntilNanos = renewed;
                }
                lastRenewalFailure = null;
                endsAtMaxHold = cappedByMaxHold;
                nextRenewNanos = nextRenewal(start, validUntilNanos);
                reschedule();
            }
        } finally {
            stateLock.unlock();
        }
        if (active) {
            client.listeners.renewed(name(), grant.fencingToken());
        }
        return active;
    }

    /**
     * The lease to ask for, cut so the grant never outlives acquisition + maxHold; null once that is reached.
     * Returns its argument itself when it is not cut (callers compare by identity to learn whether it was).
     */
    private Duration capByMaxHold(Duration lease, long now) {
        if (maxHoldEndNanos == Long.MAX_VALUE) {
            return lease;
        }
        long left = maxHoldEndNanos - now;
        if (left <= TimeUnit.MILLISECONDS.toNanos(1)) {
            return null;
        }
        return left < lease.toNanos() ? Duration.ofNanos(left) : lease;
    }

    /**
     * When to renew next: after the renew interval, or after a third of the validity the store actually
     * granted if that is shorter (a backend may grant less than the lease, e.g. capped by a session timeout).
     */
    private long nextRenewal(long from, long validUntil) {
        long interval = options.renewInterval().toNanos();
        if (validUntil != Long.MAX_VALUE) {
            interval = Math.min(interval, Math.max(TimeUnit.MILLISECONDS.toNanos(1), (validUntil - from) / 3));
        }
        return saturatedAdd(from, interval);
    }

    private long retryIntervalNanos() {
        return Math.max(TimeUnit.MILLISECONDS.toNanos(10), options.renewInterval().toNanos() / 4);
    }

    // ---------------------------------------------------------------- watchdog timer

    /** Arms the single timer at the next due event. Caller holds stateLock. */
    private void reschedule() {
        cancelTimer();
        if (state != ACTIVE) {
            return;
        }
        long lossAt = lossDeadline();
        long next = lossAt;
        if (options.autoRenew() && !renewalInFlight && maxHoldEndNanos - nextRenewNanos > 0 && nextRenewNanos - next < 0) {
            next = nextRenewNanos;
        }
        if (next == Long.MAX_VALUE) {
            return; // session-bound grant without renewal: the backend reports its loss
        }
        long delay = Math.max(0, next - time.nanoTime());
        try {
            timer = client.executors.scheduler.schedule(this::onTimer, delay);
        } catch (RejectedExecutionException closing) {
            timer = null; // the client is closing and will end this grant itself
        }
    }

    private long lossDeadline() {
        long v = validUntilNanos;
        return v == Long.MAX_VALUE ? Long.MAX_VALUE : v - guardNanos;
    }

    private void cancelTimer() {
        DeadlineTimer.Timeout t = timer;
        if (t != null) {
            t.cancel();
            timer = null;
        }
    }

    /** Runs on the scheduler thread: decides, never does I/O; whatever it throws ends the grant at once. */
    private void onTimer() {
        try {
            checkDeadlines();
        } catch (Throwable e) { // NOPMD: a timer task that fails must not leave the grant unwatched
            markLostAtOnce("the watchdog", e);
        }
    }

    private void checkDeadlines() {
        LockLoss.Reason lossReason = null;
        String detail = null;
        Throwable cause = null;
        stateLock.lock();
        try {
            timer = null;
            if (state != ACTIVE) {
                return;
            }
            long now = time.nanoTime();
            if (now - lossDeadline() >= 0) {
                // a backend's drift makes a capped grant end a little before maxHold itself, hence the flag
                boolean maxHoldReached = endsAtMaxHold || now - maxHoldEndNanos >= -guardNanos;
                if (!options.autoRenew() || maxHoldReached) {
                    lossReason = LockLoss.Reason.EXPIRED;
                    detail = maxHoldReached ? "max hold of " + options.maxHold().orElseThrow() + " reached"
                            : "lease of " + options.lease() + " ran out (auto-renew is off)";
                } else {
                    lossReason = LockLoss.Reason.RENEWAL_FAILED;
                    cause = lastRenewalFailure;
                    detail = cause == null ? "no renewal succeeded before the lease ran out"
                            : "renewals failed until the lease ran out: " + describe(cause);
                }
            } else {
                if (options.autoRenew() && !renewalInFlight && now - nextRenewNanos >= 0 && maxHoldEndNanos - now > 0) {
                    renewalInFlight = true;
                    try {
                        client.executors.workers.execute(this::renewInBackground);
                    } catch (RejectedExecutionException closing) {
                        renewalInFlight = false;
                        return;
                    }
                }
                reschedule();
                return;
            }
        } finally {
            stateLock.unlock();
        }
        markLost(lossReason, detail, cause);
    }

    // ---------------------------------------------------------------- loss

    /** A failure inside the watchdog: the grant cannot be kept or timed any more, so it ends now, with the cause. */
    private void markLostAtOnce(String where, Throwable failure) {
        if (markLost(LockLoss.Reason.RENEWAL_FAILED, where + " failed with " + describe(failure)
                + "; the lock is reported lost at once rather than when its validity ends", failure)) {
            log.debug("Why lock '{}' (token {}) was reported lost", name(), grant.fencingToken(), failure);
        }
    }

    /** Ends the grant as lost; false if it had already ended. Cannot fail before the loss is reported. */
    boolean markLost(LockLoss.Reason reason, String detail, Throwable cause) {
        stateLock.lock();
        try {
            if (state != ACTIVE) {
                return false;
            }
            state = LOST;
            cancelTimer();
        } finally {
            stateLock.unlock();
        }
        LockLoss l = new LockLoss(name(), grant.fencingToken(), reason, WallClock.forDisplay(time), detail, cause);
        loss = l;
        try {
            client.forget(this);
            leaveGate();
        } finally {
            CompletableFuture<LockLoss> f = lostFuture;
            if (f != null) {
                client.completeOffTimerThread(f, l);
            }
            try {
                log.warn("Lock '{}' (token {}) on {} was lost: {} - {}", name(), grant.fencingToken(), client.backend(), reason, detail);
                client.listeners.lost(l);
            } finally {
                if (reason == LockLoss.Reason.RENEWAL_FAILED || reason == LockLoss.Reason.EXPIRED) {
                    client.releaseQuietlyInBackground(grant);
                }
            }
        }
        return true;
    }

    /** A failure on one line, for a loss detail: its type and its message, with any password removed. */
    private static String describe(Throwable t) {
        String message = t.getMessage();
        return t.getClass().getSimpleName() + (message == null || message.isBlank() ? ""
                : ": " + io.latchkey.spi.StoreErrors.oneLine(io.latchkey.spi.Redaction.redact(message)));
    }

    CompletionStage<LockLoss> lost() {
        @SuppressWarnings("unchecked")
        CompletableFuture<LockLoss> f = (CompletableFuture<LockLoss>) LOST_FUTURE.getVolatile(this);
        if (f == null) {
            CompletableFuture<LockLoss> created = new CompletableFuture<>();
            @SuppressWarnings("unchecked")
            CompletableFuture<LockLoss> witness = (CompletableFuture<LockLoss>) LOST_FUTURE.compareAndExchange(this, null, created);
            f = witness == null ? created : witness;
        }
        LockLoss l = loss;
        if (l != null) {
            f.complete(l);
        }
        return f.minimalCompletionStage();
    }

    private void leaveGate() {
        gate.leave();
        client.gates.unuse(gate);
    }

    static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    @Override
    public String toString() {
        return "HeldLock['" + name() + "', token " + grant.fencingToken() + ", owner " + grant.owner() + ", "
                + (state == ACTIVE ? "active" : state == RELEASED ? "released" : "lost") + "]";
    }
}

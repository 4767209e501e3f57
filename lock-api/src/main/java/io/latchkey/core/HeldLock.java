package io.latchkey.core;

import io.latchkey.Durations;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.spi.Grant;
import java.time.Duration;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * One grant held by this client, from acquisition to release or loss.
 *
 * Concurrency design. Three parties touch a grant: the user's threads (renew, release), the client's
 * single scheduler thread (timers), and worker threads (background renewals, store-reported losses). Three
 * classes share the work, and one lock, the state lock (this object's own synchronizer, GrantStateLock: no lock
 * object beside it, and not the object's monitor, so that a virtual thread that waits for it on JDK 21 does not pin
 * its carrier):
 * - HeldLock (here) owns the grant's state and both of its ends. `state` moves once, ACTIVE -> RELEASED
 *   (releaseInStore, on the user's thread) or ACTIVE -> LOST (markLost, from any party), under the state lock;
 *   whoever makes that move owns the clean-up (cancel the watchdog's timer, leave the local gate, forget the
 *   grant), so it happens exactly once. A release with another thread of this client waiting at the gate may hand
 *   the lock over in the same store call (HandOffs): the new grant is parked in the gate before the permit goes.
 * - Watchdog owns validity: renewals, the single timer (armed by its base class, WatchdogTimer), and deciding that
 *   the grant is lost. It ends a grant only through markLost. Its note explains how a failure inside it is reported.
 * - LossSignal owns the lost() future, completed exactly once with the published LockLoss. It is made only when
 *   first needed (markLost, or a caller of lost()), through one compare-and-exchange: most grants never need one.
 * - The state lock guards only bookkeeping (the state, the watchdog's timer and renewal flags); no I/O ever runs
 *   while it is held, so a store that hangs cannot stall timers, other locks, or virtual threads.
 * - Once markLost has made the transition, every later step (forget, leave the gate, complete the future,
 *   log, listeners, best-effort release) runs even if an earlier one throws.
 * - No wall clock on the acquire, renewal or loss path: validity is monotonic (client.time.nanoTime()); an Instant
 *   is for display only. acquiredAt and validUntil are computed when asked for; LockLoss.at is read through
 *   WallClock, which cannot fail.
 */
@NullMarked
final class HeldLock extends GrantStateLock {
    private static final long serialVersionUID = 1L;

    private static final Logger log = LoggerFactory.getLogger(HeldLock.class);

    private static final int ACTIVE = 0;
    private static final int RELEASED = 1;
    private static final int LOST = 2;

    final CoreLockClient client;
    final Grant grant;
    /** The key in the client's registry (see GrantKeys). */
    final String key;
    /** The thread that acquired the grant (a read grant held by it refuses that thread's upgrade). */
    final Thread acquiredBy = Thread.currentThread();

    final LockOptions options;
    final @Nullable Thread reentrantOwner; // null unless PER_THREAD
    final CoreHandle primary;
    private final LocalGates.Gate gate;
    private final long grantedNanos;
    // acquiredAt and holds are updated through VarHandles rather than Atomic* objects: one grant per acquisition,
    // and two fewer objects per acquire + release cycle
    private volatile @Nullable Instant acquiredAt;
    private volatile int holds; // 1 from the constructor
    private final Watchdog watchdog;
    private volatile @Nullable LossSignal lossSignal; // made by the first to need it: most grants are never lost

    private volatile int state; // ACTIVE (0) from the start; written under the state lock

    private static final VarHandle ACQUIRED_AT;
    private static final VarHandle HOLDS;
    private static final VarHandle LOSS_SIGNAL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ACQUIRED_AT = lookup.findVarHandle(HeldLock.class, "acquiredAt", Instant.class);
            HOLDS = lookup.findVarHandle(HeldLock.class, "holds", int.class);
            LOSS_SIGNAL = lookup.findVarHandle(HeldLock.class, "lossSignal", LossSignal.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    HeldLock(
            CoreLockClient client,
            Grant grant,
            long validUntilNanos,
            LockOptions options,
            LocalGates.Gate gate,
            String key,
            long startNanos,
            long grantedNanos,
            @Nullable Thread reentrantOwner) {
        this.client = client;
        this.grant = grant;
        this.key = key;
        this.options = options;
        this.gate = gate;
        this.grantedNanos = grantedNanos;
        // plain writes (state starts at ACTIVE, 0): nothing sees this grant before the registry's volatile write
        // publishes it, and an initialised volatile field costs a full fence per acquisition
        HOLDS.set(this, 1);
        this.reentrantOwner = reentrantOwner;
        this.watchdog = new Watchdog(this, startNanos, validUntilNanos);
        this.primary = new CoreHandle(this);
    }

    /**
     * Arms the watchdog; called once the grant is registered with the client, with the clock's reading from before
     * the store call that granted (the one the validity counts from).
     */
    void start(long startNanos) {
        lockState();
        try {
            watchdog.start(startNanos, grantedNanos);
        } finally {
            unlockState();
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
        return state == ACTIVE && watchdog.withinValidity();
    }

    Duration remaining() {
        if (state != ACTIVE) {
            return Duration.ZERO;
        }
        long v = watchdog.validUntilNanos();
        if (v == Long.MAX_VALUE) {
            return Durations.MAX_WAIT;
        }
        long left = v - client.time.nanoTime();
        return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
    }

    /** When this grant was made, on the wall clock: computed on first request (display only), then fixed. */
    Instant acquiredAt() {
        Instant a = acquiredAt;
        if (a != null) {
            return a;
        }
        Instant now = client.time.now();
        Instant computed = now.minusNanos(client.time.nanoTime() - grantedNanos);
        // the first to compute it wins; the loser shows the winner's value
        return ACQUIRED_AT.compareAndSet(this, null, computed) ? computed : Objects.requireNonNull(acquiredAt);
    }

    /** Until when the grant is valid, on the wall clock (display only; validity itself is monotonic). */
    Instant validUntil() {
        long v = watchdog.validUntilNanos();
        if (v == Long.MAX_VALUE) {
            return Instant.MAX;
        }
        return client.time.now().plusNanos(v - client.time.nanoTime());
    }

    boolean ownedBy(String owner) {
        return grant.owner().equals(owner);
    }

    // ---------------------------------------------------------------- reentrancy

    /** Adds a reentrant hold if still active; the grant is released in the store when the last hold goes. */
    boolean addHold() {
        for (; ; ) {
            int h = holds;
            if (h <= 0 || state != ACTIVE) {
                return false;
            }
            if (HOLDS.compareAndSet(this, h, h + 1)) {
                return true;
            }
        }
    }

    boolean releaseHold() {
        if ((int) HOLDS.getAndAdd(this, -1) - 1 > 0) {
            return state == ACTIVE;
        }
        return releaseInStore();
    }

    // ---------------------------------------------------------------- the two ends: release and loss

    private boolean releaseInStore() {
        if (watchdog.lostBeforeRelease()) {
            return false; // reported lost, and given back in the background, as the timer would have
        }
        lockState();
        try {
            if (state != ACTIVE) {
                return false;
            }
            state = RELEASED;
            watchdog.cancelTimer();
        } finally {
            unlockState();
        }
        client.forget(this);
        try {
            boolean held = HandOffs.releaseOrHandOver(client, this, gate); // handed over if a thread waits
            client.listeners.released(name(), grant.fencingToken(), client.time, grantedNanos);
            return held;
        } finally {
            leaveGate();
        }
    }

    /**
     * Ends the grant because the store turned it into another grant (a downgrade): ACTIVE -> RELEASED without a
     * store release. The timer is cancelled first, so no renewal of this grant races the store step. False if
     * the grant had already ended; refused while it is held more than once (re-entered), changing nothing.
     */
    boolean retire() {
        lockState();
        try {
            if (state != ACTIVE) {
                return false;
            }
            if (holds != 1) {
                throw new IllegalStateException("the write grant of " + LockNames.quote(name()) + " on "
                        + client.backend() + " is held " + holds
                        + " times (re-entered); release the re-entries before downgrading");
            }
            state = RELEASED;
            watchdog.cancelTimer();
        } finally {
            unlockState();
        }
        client.forget(this);
        leaveGate();
        client.listeners.released(name(), grant.fencingToken(), client.time, grantedNanos);
        return true;
    }

    /** A renewal the user asked for (see Watchdog). */
    boolean renew(Duration lease) {
        return watchdog.renew(lease);
    }

    /** Ends the grant as lost; false if it had already ended. Cannot fail before the loss is reported. */
    boolean markLost(LockLoss.Reason reason, String detail, @Nullable Throwable cause) {
        lockState();
        try {
            if (state != ACTIVE) {
                return false;
            }
            state = LOST;
            watchdog.cancelTimer();
        } finally {
            unlockState();
        }
        LockLoss l = new LockLoss(name(), grant.fencingToken(), reason, WallClock.forDisplay(client.time), detail, cause);
        CompletableFuture<LockLoss> f = lossSignal().publish(l);
        try {
            client.forget(this);
            leaveGate();
        } finally {
            if (f != null) {
                client.completeOffTimerThread(f, l);
            }
            try {
                log.warn(
                        "Lock '{}' (token {}) on {} was lost: {} - {}",
                        name(),
                        grant.fencingToken(),
                        client.backend(),
                        reason,
                        detail);
                client.listeners.lost(l);
            } finally {
                if (reason == LockLoss.Reason.RENEWAL_FAILED || reason == LockLoss.Reason.EXPIRED) {
                    client.releaseQuietlyInBackground(grant);
                }
            }
        }
        return true;
    }

    CompletionStage<LockLoss> lost() {
        return lossSignal().stage();
    }

    /** The grant's LossSignal, made by the first caller (markLost or lost()); every caller gets the same one. */
    private LossSignal lossSignal() {
        LossSignal signal = lossSignal;
        if (signal != null) {
            return signal;
        }
        LossSignal made = new LossSignal();
        LossSignal witness = (LossSignal) LOSS_SIGNAL.compareAndExchange(this, null, made);
        return witness == null ? made : witness;
    }

    /** The local gate of this grant's key, which is also where the client registers it. */
    LocalGates.Gate gate() {
        return gate;
    }

    private void leaveGate() {
        gate.leave();
        client.gates.unuse(gate);
    }

    @Override
    public String toString() {
        return "HeldLock['" + name() + "', token " + grant.fencingToken() + ", owner " + grant.owner() + ", "
                + (state == ACTIVE ? "active" : state == RELEASED ? "released" : "lost") + "]";
    }
}

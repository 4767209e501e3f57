package io.latchkey.core;

import io.latchkey.BackendUnavailableException;
import io.latchkey.LockOptions;
import io.latchkey.LockTimeoutException;
import io.latchkey.Reentrancy;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Deadlines;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;

/*
 * The waiting loop, written once for every backend.
 *
 * 1. Reentrancy: a PER_THREAD holder re-entering gets a new view of its grant, no store traffic.
 * 2. Local gate: take the name's FIFO permit (see LocalGates), so this client sends one contender to the
 *    store per name and local waiters queue without polling. A grant the last holder handed over in its release
 *    (HandOffs) is taken from the gate and held without asking the store.
 * 3. Store: attempt with one owner id for the whole acquisition, so an attempt whose reply was lost is
 *    recognised by the next one. A backend with a native queue waits inside acquire(request, maxWait).
 *    A grant that arrives after its own lease ran out (a reply lost and retried inside the backend, a store
 *    stalled for longer than the lease) is given back at once and counts as a busy answer: a caller never
 *    receives a handle that is invalid before it sees it.
 * 4. Between attempts: the retry strategy's next delay, cut to the holder's remaining lease (if the store
 *    said) and to the time left, spent in backend.awaitChange so a notifying store ends it at a release.
 *
 * Everything the loop took (gate permit, gate reference) is given back on every path that does not end in
 * a grant: timeout, interruption, store failure.
 */
final class AcquireLoop {
    private static final long MIN_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private AcquireLoop() {}

    /**
     * @param waitNanos     0 for a single attempt that never blocks; Long.MAX_VALUE for no limit
     * @param wait          the caller's wait, as given, when it is waitNanos; else null. A store wait of exactly
     *                      this long is passed as this object rather than a new one
     * @param throwOnTimeout throw {@link LockTimeoutException} rather than return null when the wait runs out
     */
    static CoreHandle acquire(
            CoreLockClient c,
            String name,
            GrantKind kind,
            LockOptions o,
            long waitNanos,
            Duration wait,
            boolean throwOnTimeout)
            throws InterruptedException {
        c.checkOpen(name);
        long begin = System.nanoTime();
        if (kind.type() == GrantKind.Type.WRITE) {
            refuseUpgrade(c, name);
        }
        Thread reentrant = o.reentrancy() == Reentrancy.PER_THREAD ? Thread.currentThread() : null;
        if (reentrant != null && kind.type() != GrantKind.Type.PERMITS) {
            HeldLock mine = c.gates.holder(GrantKeys.of(name, kind, "", reentrant));
            if (mine != null && mine.reentrantOwner == Thread.currentThread() && mine.addHold()) {
                c.listeners.acquired(name, mine.grant.fencingToken(), 0);
                return new CoreHandle(mine);
            }
        }
        long deadline = Deadlines.saturatedAdd(begin, waitNanos);
        String owner = c.owners.next();
        String key = GrantKeys.of(name, kind, owner, reentrant);
        LocalGates.Gate gate = c.gates.use(key);
        boolean entered = false;
        boolean granted = false;
        AcquireRequest lastBusyRequest = null;
        AcquireRequest unseenRequest = null; // a request whose store call ended without an answer
        Throwable failure = null;
        try {
            // a free gate is taken without reading the clock; `begin` is then still the time to count from
            boolean enteredAtOnce = gate.tryEnterNow();
            entered = enteredAtOnce
                    || (waitNanos != 0 && gate.tryEnter(Math.max(0, deadline - System.nanoTime())));
            if (!entered) {
                return timedOut(c, name, kind, begin, 0, null, gate, true, false, throwOnTimeout);
            }
            if (!enteredAtOnce || gate.parked != null) { // a waiter, or the first in after a waiter gave up
                HandOffs.Adoptable handed = HandOffs.take(c, gate, kind, o);
                if (handed != null) {
                    granted = true; // from here the grant's HeldLock owns the gate
                    long waited = (c.systemClock ? handed.takenNanos() : System.nanoTime()) - begin;
                    return hold(c, handed.grant(), handed.validUntilNanos(), o, gate, key, handed.startNanos(),
                            handed.takenNanos(), reentrant, waited);
                }
            }
            AcquireRequest request = new AcquireRequest(name, owner, o.lease(), o.fairness(), kind);
            Iterator<Duration> delays = null;
            Busy lastBusy = null;
            RuntimeException lastError = null;
            int attempts = 0;
            for (; ; ) {
                // One clock reading before the store call and one after it, on the system clock: System.nanoTime
                // costs tens of nanoseconds on a VM, several times the rest of the core's work per reading. An
                // earlier start is the safe side (the validity counted from it ends sooner), and the first attempt
                // after an uncontended gate starts within a microsecond of `begin`.
                long now = attempts == 0 && enteredAtOnce ? begin : System.nanoTime();
                long remaining = deadline - now;
                long startNanos = c.systemClock ? now : c.time.nanoTime();
                AcquireResult result;
                attempts++;
                boolean storeWait = waitNanos > 0 && remaining > 0;
                unseenRequest = request; // until the store answers, it may have granted without our knowing
                try {
                    result = storeWait
                            ? c.backend.acquire(
                                    request, remaining == waitNanos && wait != null ? wait : Duration.ofNanos(remaining))
                            : c.backend.tryAcquire(request);
                    lastError = null;
                    unseenRequest = null;
                } catch (BackendUnavailableException e) {
                    result = null;
                    lastError = e;
                }
                if (result instanceof Grant reported) {
                    checkGrant(c, request, reported);
                    long answered = c.time.nanoTime();
                    // a store wait granted at an instant only the backend saw: the core's bound counts from the reply
                    long validUntil =
                            ValidityClamp.clamp(reported.validUntilNanos(), storeWait ? answered : startNanos, request.lease());
                    long late = answered - validUntil;
                    if (late < 0) {
                        granted = true; // from here the grant's HeldLock owns the gate
                        long waited = (c.systemClock ? answered : System.nanoTime()) - begin;
                        return hold(c, reported, validUntil, o, gate, key, startNanos, answered, reentrant, waited);
                    }
                    giveBackLateGrant(c, reported, request, late);
                    result = null; // as if the store had not answered: the retry policy's pause, then again
                }
                if (result != null) {
                    lastBusy = (Busy) result;
                    lastBusyRequest = request; // the store may have recorded this waiter: withdraw on giving up
                }
                remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    if (lastError != null) {
                        throw unavailable(c, name, kind, begin, attempts, lastError);
                    }
                    return timedOut(c, name, kind, begin, attempts, lastBusy, gate, false, false, throwOnTimeout);
                }
                if (delays == null) {
                    delays = o.retry().delays();
                }
                if (!delays.hasNext()) {
                    if (lastError != null) {
                        throw unavailable(c, name, kind, begin, attempts, lastError);
                    }
                    return timedOut(c, name, kind, begin, attempts, lastBusy, gate, false, true, throwOnTimeout);
                }
                long pause = Math.min(checkedDelay(delays.next()), remaining);
                if (result != null && lastBusy.retryAfter() != null) {
                    pause = Math.min(
                            pause,
                            Math.max(MIN_PAUSE_NANOS, lastBusy.retryAfter().toNanos()));
                }
                if (result == null) {
                    TimeUnit.NANOSECONDS.sleep(pause); // the store is unreachable: no one to notify us
                } else {
                    long pauseStart = System.nanoTime();
                    try {
                        c.backend.awaitChange(request, Duration.ofNanos(pause));
                    } catch (BackendUnavailableException e) {
                        // the store could not be watched: spend the rest of the pause here rather than spin
                        lastError = e;
                        long left = pause - (System.nanoTime() - pauseStart);
                        if (left > 0) {
                            TimeUnit.NANOSECONDS.sleep(left);
                        }
                    }
                }
                c.checkOpen(name);
            }
        } catch (InterruptedException | RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            if (!granted) {
                if (unseenRequest != null && failure instanceof InterruptedException) {
                    // the interrupt may have cost the reply (a driver that drops it): end what the store may hold.
                    // Not on a timeout or an outage: the lease ends such a grant, and asking again would take the
                    // lock from a store that is still answering others (Redlock's survivors answer busy then)
                    c.abandonInBackground(unseenRequest); // then withdraws
                } else if (lastBusyRequest != null) {
                    c.withdrawQuietly(lastBusyRequest);
                }
                if (entered) {
                    gate.leave();
                }
                c.gates.unuse(gate);
                if (failure != null) {
                    c.listeners.acquireFailed(name, System.nanoTime() - begin, failure);
                }
            }
        }
    }

    /**
     * A thread that holds a read grant of this name through this client may not wait for the write side: two
     * such threads would wait for each other's read grant forever. Refused before the store is asked.
     */
    private static void refuseUpgrade(CoreLockClient c, String name) {
        Thread me = Thread.currentThread();
        for (HeldLock h : c.gates.holders()) {
            if (h.acquiredBy == me
                    && h.grant.kind().type() == GrantKind.Type.READ
                    && h.name().equals(name)
                    && h.isActive()) {
                throw new IllegalStateException("upgrading read lock " + LockNames.quote(name) + " on " + c.backend()
                        + " to its write lock is refused: this thread holds a read grant (token "
                        + h.grant.fencingToken() + "), and two readers upgrading at once would wait for each other"
                        + " forever; release the read grant first");
            }
        }
    }

    /**
     * Releases a grant whose validity had already ended when it reached the loop: the backend's call took longer than
     * the lease (it retried a lost reply, or the store stalled). A handle made from it would be lost at once.
     */
    private static void giveBackLateGrant(CoreLockClient c, Grant g, AcquireRequest request, long lateNanos) {
        org.slf4j.LoggerFactory.getLogger(AcquireLoop.class)
                .warn(
                        "Lock '{}' on {}: the grant (token {}) arrived {} ms after its lease of {} ended (the store"
                                + " took longer than the lease to answer); released it and trying again",
                        g.name(),
                        c.backend(),
                        g.fencingToken(),
                        TimeUnit.NANOSECONDS.toMillis(lateNanos),
                        request.lease());
        c.releaseQuietly(g);
    }

    /**
     * Makes a grant the store returned this client's (an acquisition's, or a downgrade's read grant): registered
     * first, so that a loss the store reported before is found, then armed and announced. A client closed meanwhile
     * ends the grant at once and refuses, as if it had been closed before. {@code validUntilNanos} is the grant's
     * validity as the core bounds it (ValidityClamp), which may be earlier than the one the backend reported;
     * {@code startNanos} is the client clock's reading from before the store call that granted, {@code grantedNanos}
     * its reading once the grant came back.
     */
    static CoreHandle hold(
            CoreLockClient c,
            Grant g,
            long validUntilNanos,
            LockOptions o,
            LocalGates.Gate gate,
            String key,
            long startNanos,
            long grantedNanos,
            Thread reentrant,
            long waitedNanos) {
        HeldLock h = new HeldLock(c, g, validUntilNanos, o, gate, key, startNanos, grantedNanos, reentrant);
        c.register(h);
        h.start(startNanos);
        if (c.isClosed()) {
            h.markLost(io.latchkey.LockLoss.Reason.CLIENT_CLOSED, "the LockClient was closed during acquisition", null);
            c.releaseQuietly(g);
            c.checkOpen(g.name());
        }
        c.listeners.acquired(g.name(), g.fencingToken(), waitedNanos);
        return h.primary;
    }

    static void checkGrant(CoreLockClient c, AcquireRequest request, Grant g) {
        if (!g.name().equals(request.name())
                || !g.owner().equals(request.owner())
                || !g.kind().equals(request.kind())) {
            c.releaseQuietly(g);
            throw new IllegalStateException("backend " + c.backend() + " returned a grant for lock '" + g.name()
                    + "' owner " + g.owner() + " (" + g.kind() + ") in answer to a request for '" + request.name()
                    + "' owner " + request.owner() + " (" + request.kind() + "): the backend is broken");
        }
    }

    private static long checkedDelay(Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException("retry strategy returned " + d + "; delays must be zero or positive");
        }
        return d.compareTo(io.latchkey.Durations.MAX_WAIT) > 0 ? Long.MAX_VALUE : d.toNanos();
    }

    private static CoreHandle timedOut(
            CoreLockClient c,
            String name,
            GrantKind kind,
            long begin,
            int attempts,
            Busy busy,
            LocalGates.Gate gate,
            boolean localBusy,
            boolean exhausted,
            boolean throwOnTimeout) {
        long waited = System.nanoTime() - begin;
        LockTimeoutException e = new LockTimeoutException(
                timeoutMessage(c, name, kind, waited, attempts, busy, gate, localBusy, exhausted),
                name,
                c.backend(),
                Duration.ofNanos(waited));
        if (throwOnTimeout) {
            throw e; // reported to listeners by acquire's finally block
        }
        c.listeners.acquireFailed(name, waited, e);
        return null;
    }

    /** HikariCP-style: say what was seen, so a timeout can be diagnosed from the message alone. */
    private static String timeoutMessage(
            CoreLockClient c,
            String name,
            GrantKind kind,
            long waitedNanos,
            int attempts,
            Busy busy,
            LocalGates.Gate gate,
            boolean localBusy,
            boolean exhausted) {
        StringBuilder sb = new StringBuilder(160);
        sb.append(exhausted ? "Gave up on " : "Timed out after ")
                .append(exhausted ? "" : Duration.ofNanos(waitedNanos) + " waiting for ")
                .append(GrantKeys.describe(name, kind))
                .append(" on ")
                .append(c.backend())
                .append(": ");
        if (exhausted) {
            sb.append("the retry strategy ran out of delays after ")
                    .append(Duration.ofNanos(waitedNanos))
                    .append("; ");
        }
        if (localBusy) {
            sb.append("this client already holds it or is acquiring it");
        } else if (kind.type() == GrantKind.Type.PERMITS) {
            sb.append("not enough permits free");
            if (busy != null && busy.retryAfter() != null) {
                sb.append(", the next grant's lease ends in ").append(busy.retryAfter());
            }
        } else if (busy != null && busy.holder() != null) {
            sb.append("held by ").append(busy.holder());
            if (busy.holderToken() >= 0) {
                sb.append(" (token ").append(busy.holderToken()).append(')');
            }
            if (busy.retryAfter() != null) {
                sb.append(", lease ends in ").append(busy.retryAfter());
            }
        } else {
            sb.append("held by another owner");
        }
        sb.append("; ").append(attempts).append(attempts == 1 ? " attempt" : " attempts");
        sb.append(", ").append(gate.queued()).append(" more waiter(s) queued in this client");
        return sb.toString();
    }

    private static BackendUnavailableException unavailable(
            CoreLockClient c, String name, GrantKind kind, long begin, int attempts, RuntimeException last) {
        return new BackendUnavailableException(
                "Could not acquire " + GrantKeys.describe(name, kind) + " on " + c.backend()
                        + ": the store could not be used (" + attempts + " attempts in "
                        + Duration.ofNanos(System.nanoTime() - begin)
                        + "); last error: " + io.latchkey.spi.Redaction.redact(last.getMessage()),
                name,
                c.backend(),
                last);
    }
}

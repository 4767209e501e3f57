package io.latchkey.tck.selftest;

import io.latchkey.BackendUnavailableException;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.HandOver;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import java.util.function.Supplier;

/*
 * A deliberately small in-memory lock store with exactly one configurable defect (a Flaw), shared by every
 * FlawedBackend (client) made from it, as a server is shared by its clients.
 *
 * With Flaw.NONE it is a correct store: a grant is made only if the name is free, expired, or already held
 * by the same owner (then with the same token); tokens come from a per-name counter that survives release
 * and expiry; renew and release act only on the very grant (owner and token) they were given; forceRelease
 * tells the holder through its GrantLossSink. Expiry uses System.nanoTime().
 *
 * Each flaw is written as one visible deviation at the place a real backend would get it wrong, guarded by
 * `flaw == Flaw.X`, so a reader can check that nothing else differs from the control.
 *
 * Concurrency: one ReentrantLock guards the whole map; the store is for tests, simplicity beats throughput.
 * Loss notifications are sent after the lock is released, as a store's notification would arrive later.
 */
final class FlawedStore {
    /** Race window of NO_EXCLUSION_UNDER_RACE: random, so racing writers land in any order and close together. */
    private static final long MIN_RACE_PAUSE_NANOS = 50_000;

    private static final long MAX_RACE_PAUSE_NANOS = 200_000;

    /** VALID_UNTIL_FROM_REPLY: how long after the store's decision its reply arrives. */
    private static final long REPLY_LATENCY_NANOS = TimeUnit.MILLISECONDS.toNanos(30);

    private final Flaw flaw;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition(); // signalled on every release: the store's notification
    private long changes; // guarded by lock; counts releases, so a waiter can tell it was notified
    private final Map<String, Slot> slots = new HashMap<>(); // guarded by lock; key: see key()
    private long everyToken; // guarded by lock; GRANTS_EVERYTHING's one counter
    private volatile boolean down; // an outage (TckFaults.outage): every call fails as an unreachable server's would

    /** The expiry of a grant that waits for its lease (LEASE_SET_BY_A_SECOND_REQUEST): a year, for ever here. */
    private static final long UNTIL_A_LEASE_IS_SET = TimeUnit.DAYS.toNanos(365);

    FlawedStore(Flaw flaw) {
        this.flaw = flaw;
    }

    Flaw flaw() {
        return flaw;
    }

    /** A new client of this store. */
    FlawedBackend newBackend() {
        return new FlawedBackend(this);
    }

    String description() {
        return "flawed-mem:" + flaw;
    }

    /** Whether the store notifies waiters and waits inside acquire: see Flaw#waitsInTheStore. */
    boolean waitsInTheStore() {
        return flaw.waitsInTheStore();
    }

    /** Makes every call of every client fail with BackendUnavailableException until the handle is closed. */
    AutoCloseable outage() {
        down = true;
        return () -> down = false;
    }

    // ---------------------------------------------------------------- operations

    AcquireResult tryAcquire(AcquireRequest req, FlawedBackend by) {
        long start = System.nanoTime();
        if (flaw == Flaw.GRANTS_EVERYTHING) { // FLAW: nothing is stored, nothing is ever busy
            return locked(() -> new Grant(
                    req.name(), req.owner(), ++everyToken, start + req.lease().toNanos(), null));
        }
        String key = key(req.name());
        if (flaw == Flaw.NO_EXCLUSION_UNDER_RACE) {
            // FLAW: check, then act in a separate step. Between the two, another client can also see "free".
            AcquireResult seen = locked(() -> answerIfTaken(key, req, System.nanoTime()));
            if (seen != null) {
                return seen;
            }
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(MIN_RACE_PAUSE_NANOS, MAX_RACE_PAUSE_NANOS + 1));
            return locked(() -> slot(key).grant(req, by, start, System.nanoTime()));
        }
        AcquireResult result = locked(() -> {
            long now = System.nanoTime();
            AcquireResult seen = answerIfTaken(key, req, now);
            return seen != null ? seen : slot(key).grant(req, by, start, now);
        });
        if (flaw == Flaw.VALID_UNTIL_FROM_REPLY && result instanceof Grant g) {
            // FLAW: the reply arrives 30 ms after the store decided, and validity is counted from its arrival
            LockSupport.parkNanos(REPLY_LATENCY_NANOS);
            return new Grant(g.name(), g.owner(), g.fencingToken(), System.nanoTime() + req.lease().toNanos(), null);
        }
        return result;
    }

    /**
     * The wait inside the store (clients whose flaw waitsInTheStore): tries, then sleeps until a release is
     * notified, until {@code maxWait}. Leaves nothing queued: the store has no queue.
     */
    AcquireResult acquire(AcquireRequest req, Duration maxWait, FlawedBackend by) throws InterruptedException {
        long deadline = System.nanoTime() + maxWait.toNanos();
        for (; ; ) {
            AcquireResult r = flaw == Flaw.IDEMPOTENT_ONLY_IN_TRYACQUIRE
                    // FLAW: the waiting path asks "is it held?" without asking "by whom?"
                    ? locked(() -> {
                        long now = System.nanoTime();
                        Slot s = slots.get(key(req.name()));
                        return s != null && s.isHeld(now) ? s.busy(now) : null;
                    })
                    : null;
            if (r == null) {
                r = tryAcquire(req, by);
            }
            long left = deadline - System.nanoTime();
            if (r instanceof Grant || left <= 0) {
                return r;
            }
            // until a release is notified, or the holder's lease runs out (the store's own timer), or maxWait
            Duration untilExpiry = ((Busy) r).retryAfter();
            long pause = untilExpiry == null ? left : Math.min(left, untilExpiry.toNanos() + 1_000_000);
            awaitChange(req, Duration.ofNanos(pause));
        }
    }

    /** Sleeps until a release is notified or the timeout passes; true if notified. */
    boolean awaitChange(AcquireRequest req, Duration timeout) throws InterruptedException {
        if (flaw == Flaw.NATIVE_WAIT_IGNORES_UNFAIR && req.fairness() == io.latchkey.Fairness.NONE) {
            TimeUnit.NANOSECONDS.sleep(timeout.toNanos()); // FLAW: a waiter that asked for no fairness is never woken
            return false;
        }
        lock.lockInterruptibly();
        try {
            long seen = changes;
            long left = timeout.toNanos();
            while (changes == seen && left > 0) {
                left = changed.awaitNanos(left);
            }
            return changes != seen;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes the waiters in the store (caller holds the lock). */
    private void notifyWaiters() {
        changes++;
        changed.signalAll();
    }

    /** The answer when the lock is not free for a new grant (busy, or already ours); null when it is free. */
    private AcquireResult answerIfTaken(String key, AcquireRequest req, long now) {
        Slot s = slots.get(key);
        if (s == null || !s.isHeld(now)) {
            return null;
        }
        if (!s.owner.equals(req.owner())) {
            return s.busy(now);
        }
        if (flaw == Flaw.SAME_OWNER_IS_BUSY || flaw == Flaw.LEASE_SET_BY_A_SECOND_REQUEST) {
            return s.busy(now); // FLAW: its own earlier grant, whose reply was lost, makes it busy
        }
        if (flaw == Flaw.SAME_OWNER_GETS_NEW_TOKEN) {
            s.token = ++s.lastToken; // FLAW: a second grant for one acquisition
        }
        // the same owner already holds it: an earlier attempt whose reply was lost, granted with the same token
        return s.currentGrant(req.name());
    }

    RenewResult renew(Grant grant, Duration lease) {
        long start = System.nanoTime();
        if (flaw == Flaw.GRANTS_EVERYTHING) {
            return RenewResult.renewed(start + lease.toNanos()); // FLAW: renews what it never stored
        }
        return locked(() -> {
            Slot s = slots.get(key(grant.name()));
            long now = System.nanoTime();
            // FLAW RELEASE_DELETES_OTHER_OWNERS_GRANT: skips the owner/token check, extends whoever holds the name
            // FLAW RENEW_REVIVES_EXPIRED: an expired grant that no one took since is renewed
            boolean live = s != null && (s.isHeld(now) || (flaw == Flaw.RENEW_REVIVES_EXPIRED && s.owner != null));
            if (live && (flaw == Flaw.RELEASE_DELETES_OTHER_OWNERS_GRANT || s.holds(grant))) {
                if (flaw == Flaw.RENEW_SHORTENS_THE_LEASE) { // FLAW: keeps a renewal for half the lease it reports
                    s.expiresAt = now + storedLease(lease) / 2;
                } else if (flaw != Flaw.RENEW_DOES_NOT_EXTEND) { // FLAW RENEW_DOES_NOT_EXTEND: says renewed, changes nothing
                    s.expiresAt = now + storedLease(lease);
                }
                if (flaw == Flaw.VALID_UNTIL_FROM_REPLY) { // FLAW: counted from the reply's arrival
                    LockSupport.parkNanos(REPLY_LATENCY_NANOS);
                    return RenewResult.renewed(System.nanoTime() + lease.toNanos());
                }
                return RenewResult.renewed(start + lease.toNanos());
            }
            if (flaw == Flaw.LOSS_NEVER_REPORTED) {
                return RenewResult.renewed(start + lease.toNanos()); // FLAW: claims a grant the store no longer holds
            }
            boolean forced = s != null && grant.owner().equals(s.forcedOwner);
            return RenewResult.notHeld(
                    forced && flaw != Flaw.FORCED_LOSS_REPORTED_AS_EXPIRED
                            ? LockLoss.Reason.RELEASED_BY_ADMIN
                            : LockLoss.Reason.EXPIRED);
        });
    }

    boolean release(Grant grant) {
        if (flaw == Flaw.GRANTS_EVERYTHING) {
            return true; // FLAW: "released" what it never stored
        }
        return locked(() -> {
            Slot s = slots.get(key(grant.name()));
            if (s == null || s.owner == null) {
                return false;
            }
            // FLAW RELEASE_DELETES_OTHER_OWNERS_GRANT: skips the owner/token check, removes whoever holds the name
            if (flaw != Flaw.RELEASE_DELETES_OTHER_OWNERS_GRANT && !s.holds(grant)) {
                return false;
            }
            boolean wasValid = s.isHeld(System.nanoTime());
            s.clear();
            if (flaw == Flaw.TOKEN_RESET_AFTER_RELEASE || (flaw == Flaw.TOKEN_RESET_AFTER_EXPIRY && !wasValid)) {
                s.lastToken = 0; // FLAW: the counter was a field of the deleted (or already expired) record
            }
            notifyWaiters();
            return wasValid;
        });
    }

    /** Ends the held grant and grants next in one step under the store's lock (no queue here to pass over). */
    HandOver handOver(Grant held, AcquireRequest next, FlawedBackend by) {
        long start = System.nanoTime();
        if (flaw == Flaw.GRANTS_EVERYTHING) { // FLAW: "hands over" what it never stored
            return HandOver.to(locked(() -> new Grant(
                    next.name(), next.owner(), ++everyToken, start + next.lease().toNanos(), null)));
        }
        return locked(() -> {
            Slot s = slots.get(key(held.name()));
            if (s == null || s.owner == null) {
                return HandOver.released(false);
            }
            // FLAW HAND_OVER_OF_A_GRANT_NOT_HELD: skips the owner/token check, hands over whoever holds the name
            if (flaw != Flaw.HAND_OVER_OF_A_GRANT_NOT_HELD && !s.holds(held)) {
                return HandOver.released(false);
            }
            long now = System.nanoTime();
            if (!s.isHeld(now)) {
                s.clear();
                notifyWaiters();
                return HandOver.released(false);
            }
            if (flaw == Flaw.HAND_OVER_KEEPS_TOKEN) {
                s.lastToken--; // FLAW: the next grant takes the held grant's token again
            }
            return HandOver.to(s.grant(next, by, start, now));
        });
    }

    Optional<LockInfo> inspect(String name) {
        return locked(() -> {
            Slot s = slots.get(key(name));
            if (flaw == Flaw.INSPECT_SHOWS_NOTHING) {
                return Optional.empty(); // FLAW
            }
            // FLAW INSPECT_SHOWS_EXPIRED: an expired grant is shown as held
            return s == null
                    ? Optional.empty()
                    : Optional.ofNullable(s.info(System.nanoTime(), flaw == Flaw.INSPECT_SHOWS_EXPIRED));
        });
    }

    List<LockInfo> list(String prefix) {
        List<LockInfo> out = locked(() -> {
            long now = System.nanoTime();
            List<LockInfo> held = new ArrayList<>();
            for (Slot s : slots.values()) {
                LockInfo info = s.info(now, flaw == Flaw.LIST_SHOWS_EXPIRED); // FLAW LIST_SHOWS_EXPIRED
                if (info != null && underPrefix(info.name(), prefix)) {
                    held.add(info);
                }
            }
            return held;
        });
        out.sort(Comparator.comparing(LockInfo::name));
        return out;
    }

    boolean forceRelease(String name) {
        Removed removed = locked(() -> {
            Slot s = slots.get(key(name));
            if (s == null || !s.isHeld(System.nanoTime())) {
                return null;
            }
            Removed r = new Removed(s.name, s.owner, s.grantor);
            s.forcedOwner = s.owner; // so that the holder's next renewal learns why
            if (flaw == Flaw.FORCE_RELEASE_REMOVES_NOTHING) {
                return r; // FLAW: the holder is told, the grant stays
            }
            s.clear();
            if (flaw == Flaw.FORCE_RELEASE_RESETS_FENCING) {
                slots.remove(key(name)); // FLAW: the record goes, and its fencing counter with it
            }
            if (flaw != Flaw.FORCE_RELEASE_WAKES_NOBODY) { // FLAW FORCE_RELEASE_WAKES_NOBODY: no notification
                notifyWaiters();
            }
            return r;
        });
        if (removed == null) {
            return flaw == Flaw.FORCE_RELEASE_ALWAYS_TRUE; // FLAW FORCE_RELEASE_ALWAYS_TRUE: "removed" nothing
        }
        if (flaw != Flaw.LOSS_NEVER_REPORTED) { // FLAW LOSS_NEVER_REPORTED: the holder is not told
            removed.grantor.reportLost(
                    removed.name,
                    removed.owner,
                    // FLAW FORCED_LOSS_REPORTED_AS_EXPIRED: the wrong reason
                    flaw == Flaw.FORCED_LOSS_REPORTED_AS_EXPIRED
                            ? LockLoss.Reason.EXPIRED
                            : LockLoss.Reason.RELEASED_BY_ADMIN,
                    "released by an administrator (forceRelease)");
        }
        return true;
    }

    /** A grant that forceRelease removed, to notify its holder once the store lock is released. */
    private record Removed(String name, String owner, FlawedBackend grantor) {}

    // ---------------------------------------------------------------- internals

    /** The store key of a name: the name itself, so that every valid name stays distinct. */
    private String key(String name) {
        if (flaw == Flaw.BAD_NAME_CORRUPTS_ANOTHER_LOCK) {
            return name.toLowerCase(Locale.ROOT); // FLAW: lossy, "a" and "A" share one lock
        }
        if (flaw == Flaw.NAME_TRUNCATED && name.length() > 200) {
            return name.substring(0, 200); // FLAW: lossy, long names that differ at the end share one lock
        }
        return name;
    }

    /** Whether a listed name is under the prefix: literally, except for LIST_PREFIX_AS_PATTERN and LIST_IGNORES_PREFIX. */
    private boolean underPrefix(String name, String prefix) {
        if (flaw == Flaw.LIST_IGNORES_PREFIX) {
            return true; // FLAW
        }
        if (flaw == Flaw.LIST_PREFIX_AS_PATTERN) { // FLAW: the prefix is handed to a LIKE or a glob unescaped
            StringBuilder regex = new StringBuilder();
            for (char c : prefix.toCharArray()) {
                switch (c) {
                    case '_', '?' -> regex.append('.');
                    case '%', '*' -> regex.append(".*");
                    case '[', ']' -> regex.append(c);
                    default -> regex.append(Pattern.quote(String.valueOf(c)));
                }
            }
            return Pattern.compile(regex + ".*", Pattern.DOTALL).matcher(name).matches();
        }
        return name.startsWith(prefix);
    }

    /** How long the store keeps a grant of {@code lease}. */
    private long storedLease(Duration lease) {
        if (flaw == Flaw.LEASE_FLOORED_TO_SECONDS) { // FLAW: whole seconds, rounded down, at least one
            return TimeUnit.SECONDS.toNanos(Math.max(1, lease.toSeconds()));
        }
        return lease.toNanos();
    }

    private Slot slot(String key) {
        return slots.computeIfAbsent(key, k -> new Slot());
    }

    private <T> T locked(Supplier<T> action) {
        if (down) {
            throw new BackendUnavailableException("the store is in an outage (a TCK fault)", null, description(), null);
        }
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    /** One name's state; its token counter outlives every grant so tokens never go back. */
    private final class Slot {
        String name; // the name of the current grant (for inspect/list); with a lossy key, the last one granted
        String owner;
        long token;
        long lastToken;
        long expiresAt;
        Instant acquiredAt;
        FlawedBackend grantor;
        String forcedOwner;

        boolean isHeld(long now) {
            if (owner == null) {
                return false;
            }
            return flaw == Flaw.LEASE_NEVER_EXPIRES || now - expiresAt < 0; // FLAW LEASE_NEVER_EXPIRES: no expiry
        }

        boolean holds(Grant g) {
            // FLAW RELEASE_IGNORES_TOKEN: the owner is checked, the token is not
            return g.owner().equals(owner) && (flaw == Flaw.RELEASE_IGNORES_TOKEN || g.fencingToken() == token);
        }

        Grant grant(AcquireRequest req, FlawedBackend by, long start, long now) {
            if (flaw == Flaw.TOKEN_RESET_AFTER_EXPIRY && owner != null) {
                lastToken = 0; // FLAW: the previous grant expired, and the counter was part of its record
            }
            name = req.name();
            owner = req.owner();
            // FLAW TOKEN_NOT_INCREASING: the counter is never advanced, every grant gets token 1
            token = flaw == Flaw.TOKEN_NOT_INCREASING ? 1 : ++lastToken;
            long lease = req.lease().toNanos();
            // FLAW LEASE_SET_BY_A_SECOND_REQUEST: no expiry until the client's next request (a renew) sets one
            expiresAt = now
                    + (flaw == Flaw.LEASE_SET_BY_A_SECOND_REQUEST ? UNTIL_A_LEASE_IS_SET : storedLease(req.lease()));
            acquiredAt = Instant.now();
            grantor = by;
            // validity counted from before the request reached the store: conservative, as §4.3 asks
            return new Grant(req.name(), owner, token, start + lease, null);
        }

        Grant currentGrant(String requested) {
            return new Grant(requested, owner, token, expiresAt, null);
        }

        Busy busy(long now) {
            long left = expiresAt - now;
            return new Busy(owner, token, left > 0 ? Duration.ofNanos(left) : null);
        }

        LockInfo info(long now, boolean showExpired) {
            if (owner == null || (!showExpired && !isHeld(now))) {
                return null;
            }
            return new LockInfo(
                    name,
                    owner,
                    token,
                    Optional.of(acquiredAt),
                    Optional.of(Instant.now().plusNanos(expiresAt - now)));
        }

        void clear() {
            owner = null;
            grantor = null;
            acquiredAt = null;
        }
    }

    @Override
    public String toString() {
        return "FlawedStore[" + flaw + "]";
    }
}

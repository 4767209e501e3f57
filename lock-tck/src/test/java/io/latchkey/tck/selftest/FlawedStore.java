package io.latchkey.tck.selftest;

import io.latchkey.BackendUnavailableException;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
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
import java.util.concurrent.locks.ReentrantLock;
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

    private final Flaw flaw;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Slot> slots = new HashMap<>(); // guarded by lock; key: see key()
    private long everyToken; // guarded by lock; GRANTS_EVERYTHING's one counter
    private volatile boolean down; // an outage (TckFaults.outage): every call fails as an unreachable server's would

    FlawedStore(Flaw flaw) {
        this.flaw = flaw;
    }

    /** A new client of this store. */
    FlawedBackend newBackend() {
        return new FlawedBackend(this);
    }

    String description() {
        return "flawed-mem:" + flaw;
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
        return locked(() -> {
            long now = System.nanoTime();
            AcquireResult seen = answerIfTaken(key, req, now);
            return seen != null ? seen : slot(key).grant(req, by, start, now);
        });
    }

    /** The answer when the lock is not free for a new grant (busy, or already ours); null when it is free. */
    private AcquireResult answerIfTaken(String key, AcquireRequest req, long now) {
        Slot s = slots.get(key);
        if (s == null || !s.isHeld(now)) {
            return null;
        }
        // the same owner already holds it: an earlier attempt whose reply was lost, granted with the same token
        return s.owner.equals(req.owner()) ? s.currentGrant(req.name()) : s.busy(now);
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
            if (s != null && s.isHeld(now) && (flaw == Flaw.RELEASE_DELETES_OTHER_OWNERS_GRANT || s.holds(grant))) {
                s.expiresAt = now + lease.toNanos();
                return RenewResult.renewed(start + lease.toNanos());
            }
            if (flaw == Flaw.LOSS_NEVER_REPORTED) {
                return RenewResult.renewed(start + lease.toNanos()); // FLAW: claims a grant the store no longer holds
            }
            boolean forced = s != null && grant.owner().equals(s.forcedOwner);
            return RenewResult.notHeld(forced ? LockLoss.Reason.RELEASED_BY_ADMIN : LockLoss.Reason.EXPIRED);
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
            return wasValid;
        });
    }

    Optional<LockInfo> inspect(String name) {
        return locked(() -> {
            Slot s = slots.get(key(name));
            return s == null ? Optional.empty() : Optional.ofNullable(s.info(System.nanoTime()));
        });
    }

    List<LockInfo> list(String prefix) {
        List<LockInfo> out = locked(() -> {
            long now = System.nanoTime();
            List<LockInfo> held = new ArrayList<>();
            for (Slot s : slots.values()) {
                LockInfo info = s.info(now);
                if (info != null && info.name().startsWith(prefix)) {
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
            s.clear();
            return r;
        });
        if (removed == null) {
            return false;
        }
        if (flaw != Flaw.LOSS_NEVER_REPORTED) { // FLAW LOSS_NEVER_REPORTED: the holder is not told
            removed.grantor.reportLost(
                    removed.name,
                    removed.owner,
                    LockLoss.Reason.RELEASED_BY_ADMIN,
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
        return name;
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
            return g.owner().equals(owner) && g.fencingToken() == token;
        }

        Grant grant(AcquireRequest req, FlawedBackend by, long start, long now) {
            name = req.name();
            owner = req.owner();
            // FLAW TOKEN_NOT_INCREASING: the counter is never advanced, every grant gets token 1
            token = flaw == Flaw.TOKEN_NOT_INCREASING ? 1 : ++lastToken;
            long lease = req.lease().toNanos();
            expiresAt = now + lease;
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

        LockInfo info(long now) {
            if (!isHeld(now)) {
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

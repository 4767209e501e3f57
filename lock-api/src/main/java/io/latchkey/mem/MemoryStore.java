package io.latchkey.mem;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Fairness;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.HandOver;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/*
 * An in-memory lock store shared by every MemoryBackend (client) that uses it, as a server is shared by
 * its clients. Expiry is judged by the store's own TimeSource (the system clock or a VirtualClock).
 *
 * Concurrency design. One Slot per name, each with its own ReentrantLock, so different names never
 * contend. A slot keeps its token counter after release, so tokens never go back. Fair waiters queue as
 * tickets, each with its own Condition: a release signals only the head ticket (one waiter, not all), and
 * non-queued waiters (awaitChange) share one Condition signalled once per release. Loss notifications to
 * holders (virtual expiry, forced release) are sent after the slot lock is released.
 *
 * Clock readings. A step reads the clock before it takes the slot's lock (a grant's validity counts from there) and
 * judges expiry under the lock. A step that may grant (tryAcquire, acquire) takes the first reading for that time too
 * when the lock was free at once (lockAt), so an uncontended acquisition reads the clock once, not twice. For a grant
 * an earlier "now" is the safe side, however much earlier (the thread may have paused before the lock): a holder seen
 * as live longer, a new grant that ends sooner. It is not the safe side for a step that judges whether the caller's
 * own grant still stands (renew, hand-over, downgrade, release): an earlier "now" could find alive a grant that had
 * already ended, and renew would revive it. Those read the clock under the lock.
 */
/**
 * An in-memory lock store, shared by every {@code mem:} client that uses it as a server is shared by its clients;
 * expiry is judged by the store's own {@link TimeSource}.
 */
public final class MemoryStore {
    private static final ConcurrentHashMap<String, MemoryStore> NAMED = new ConcurrentHashMap<>();

    private final @Nullable String name; // null: a private store
    private final TimeSource time;
    private final ConcurrentHashMap<String, MemorySlot> slots = new ConcurrentHashMap<>();
    private final MemorySemaphores semaphores;
    private final MemoryReadWrite readWrite;
    private volatile boolean available = true;

    /** A private store on the system clock. */
    public MemoryStore() {
        this(null, TimeSource.system());
    }

    /**
     * A private store on the given clock (for example a {@link VirtualClock}).
     *
     * @param time the store's clock
     */
    public MemoryStore(TimeSource time) {
        this(null, time);
    }

    private MemoryStore(@Nullable String name, TimeSource time) {
        if (time == null) {
            throw new IllegalArgumentException("time source must not be null");
        }
        this.name = name;
        this.time = time;
        this.semaphores = new MemorySemaphores(this, time);
        this.readWrite = new MemoryReadWrite(this, time);
        if (time instanceof VirtualClock clock) {
            clock.onAdvance(this::expireAll);
        }
    }

    /**
     * The JVM-wide store with this name, created on first use and kept for the life of the JVM (as H2's
     * {@code DB_CLOSE_DELAY=-1}), so every {@code mem:NAME} client in the JVM shares it.
     *
     * @param name the store's name
     * @return the store
     */
    public static MemoryStore named(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("store name must not be empty");
        }
        return NAMED.computeIfAbsent(name, n -> new MemoryStore(n, TimeSource.system()));
    }

    /**
     * The store's clock.
     *
     * @return the clock that judges expiry
     */
    public TimeSource time() {
        return time;
    }

    /**
     * Simulates an outage: while unavailable, every operation throws {@link BackendUnavailableException}.
     *
     * @param available false to start an outage, true to end it
     */
    public void setAvailable(boolean available) {
        this.available = available;
        if (available) {
            for (MemorySlot s : slots.values()) {
                s.lock.lock();
                try {
                    s.changed.signalAll();
                } finally {
                    s.lock.unlock();
                }
            }
            semaphores.signalAll();
            readWrite.signalAll();
        }
    }

    /**
     * A backend (one client's view) on this store.
     *
     * @return a new backend
     */
    public MemoryBackend newBackend() {
        return new MemoryBackend(this);
    }

    String description() {
        return name != null
                ? "mem:" + name
                : "mem:(private " + Integer.toHexString(System.identityHashCode(this)) + ")";
    }

    /** The read-write locks of this store, a namespace apart from its locks. */
    MemoryReadWrite readWrite() {
        return readWrite;
    }

    /** The semaphores of this store, a namespace apart from its locks. */
    MemorySemaphores semaphores() {
        return semaphores;
    }

    // ---------------------------------------------------------------- operations

    /** Per thread, the slot and its count of ends at this thread's last busy answer (the core waits on that thread). */
    private final ThreadLocal<Seen> lastBusy = new ThreadLocal<>();

    /**
     * Takes {@code lock} and answers the store's time for the step: {@code before} (read just before) when the lock
     * was free at once, else a reading taken under it. See the note on top.
     */
    static long lockAt(ReentrantLock lock, long before, TimeSource time) {
        if (lock.tryLock()) {
            return before;
        }
        lock.lock();
        try {
            return time.nanoTime();
        } catch (Throwable e) { // a clock that throws: the caller's finally is not yet in force
            lock.unlock();
            throw e;
        }
    }

    AcquireResult tryAcquire(AcquireRequest req, MemoryBackend by) {
        checkAvailable(req.name());
        long start = time.nanoTime();
        MemorySlot s = slot(req.name());
        long now = lockAt(s.lock, start, time);
        try {
            if (s.isHeld(now)) {
                if (req.owner().equals(s.owner)) {
                    return s.currentGrant(req.name());
                }
                lastBusy.set(new Seen(s, s.ends));
                return s.busy(now);
            }
            if (!s.queue.isEmpty() && req.fairness() != Fairness.NONE) {
                lastBusy.set(new Seen(s, s.ends));
                return Busy.UNKNOWN; // fair order: queued waiters go first
            }
            return s.grant(req, by, start, now);
        } finally {
            s.lock.unlock();
        }
    }

    AcquireResult acquire(AcquireRequest req, Duration maxWait, MemoryBackend by) throws InterruptedException {
        if (req.fairness() == Fairness.NONE) {
            return tryAcquire(req, by);
        }
        checkAvailable(req.name());
        long start = time.nanoTime();
        MemorySlot s = slot(req.name());
        long now = lockAt(s.lock, start, time);
        try {
            if (s.isHeld(now) && req.owner().equals(s.owner)) {
                return s.currentGrant(req.name());
            }
            if (!s.isHeld(now) && s.queue.isEmpty()) {
                return s.grant(req, by, start, now);
            }
            // the wait runs on the real clock (Condition.awaitNanos), from the call's start when the store's clock is
            // the real one (a free slot never needs the deadline)
            long deadline = (time == TimeSource.system() ? start : System.nanoTime())
                    + Math.min(maxWait.toNanos(), Long.MAX_VALUE / 4);
            MemorySlot.Ticket me = new MemorySlot.Ticket(s.lock.newCondition());
            s.queue.addLast(me);
            try {
                for (; ; ) {
                    now = time.nanoTime();
                    if (s.queue.peekFirst() == me && !s.isHeld(now)) {
                        s.queue.removeFirst();
                        checkAvailable(req.name());
                        return s.grant(req, by, now, now); // its validity and its expiry from one reading
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return s.isHeld(now) ? s.busy(now) : Busy.UNKNOWN;
                    }
                    long pause = left;
                    if (s.isHeld(now)) {
                        pause = Math.min(pause, Math.max(TimeUnit.MILLISECONDS.toNanos(1), s.expiresAt - now));
                    }
                    me.wakeUp.awaitNanos(pause);
                    checkAvailable(req.name());
                }
            } finally {
                // leaving the queue (granted, timed out, interrupted or failed): let the next one look
                boolean wasHead = s.queue.peekFirst() == me;
                s.queue.remove(me);
                if (wasHead) {
                    s.signalHead();
                }
            }
        } finally {
            s.lock.unlock();
        }
    }

    boolean awaitChange(String lockName, Duration timeout) throws InterruptedException {
        checkAvailable(lockName);
        MemorySlot s = slot(lockName);
        Seen seen = lastBusy.get();
        lastBusy.remove();
        s.lock.lock();
        try {
            if (seen != null && seen.slot() == s && seen.ends() != s.ends) {
                return true; // ended between this thread's busy answer and its wait: the signal went to nobody
            }
            return s.changed.awaitNanos(timeout.toNanos()) > 0;
        } finally {
            s.lock.unlock();
        }
    }

    /** What a thread's last busy answer saw of a slot: awaitChange must not sleep through an end since then. */
    private record Seen(MemorySlot slot, long ends) {}

    RenewResult renew(Grant grant, Duration lease) {
        checkAvailable(grant.name());
        long start = time.nanoTime();
        MemorySlot s = slot(grant.name());
        s.lock.lock();
        try {
            long now = time.nanoTime(); // the caller's own grant: judged by a reading under the lock
            if (s.isHeld(now) && grant.owner().equals(s.owner) && s.token == grant.fencingToken()) {
                s.expiresAt = now + lease.toNanos();
                return RenewResult.renewed(start + lease.toNanos());
            }
            return RenewResult.notHeld(
                    grant.owner().equals(s.forcedOwner) ? LockLoss.Reason.RELEASED_BY_ADMIN : LockLoss.Reason.EXPIRED);
        } finally {
            s.lock.unlock();
        }
    }

    boolean release(Grant grant) {
        checkAvailable(grant.name());
        MemorySlot s = slots.get(grant.name());
        if (s == null) {
            return false;
        }
        s.lock.lock();
        try {
            if (s.isRecordOf(grant)) {
                boolean wasValid = s.isHeld(time.nanoTime());
                s.clear();
                return wasValid;
            }
            return false;
        } finally {
            s.lock.unlock();
        }
    }

    /**
     * Ends {@code held} and grants {@code next} under the slot's lock, so the lock is never free in between; only a
     * release (the head signalled) when a fair waiter of any client is queued in the slot, as tryAcquire would not
     * grant then either.
     */
    HandOver handOver(Grant held, AcquireRequest next, MemoryBackend by) {
        checkAvailable(held.name());
        long start = time.nanoTime();
        MemorySlot s = slots.get(held.name());
        if (s == null) {
            return HandOver.released(false);
        }
        s.lock.lock();
        try {
            long now = time.nanoTime(); // the caller's own grant: judged by a reading under the lock
            if (!s.isRecordOf(held)) {
                return HandOver.released(false);
            }
            if (!s.isHeld(now) || !s.queue.isEmpty()) {
                boolean wasValid = s.isHeld(now);
                s.clear();
                return HandOver.released(wasValid);
            }
            return HandOver.to(s.grant(next, by, start, now));
        } finally {
            s.lock.unlock();
        }
    }

    Optional<LockInfo> inspect(String lockName) {
        checkAvailable(lockName);
        MemorySlot s = slots.get(lockName);
        if (s == null) {
            return Optional.empty();
        }
        s.lock.lock();
        try {
            return Optional.ofNullable(s.info(lockName, time.nanoTime(), time));
        } finally {
            s.lock.unlock();
        }
    }

    List<LockInfo> list(String prefix) {
        checkAvailable(null);
        List<LockInfo> out = new ArrayList<>();
        slots.forEach((lockName, s) -> {
            if (lockName.startsWith(prefix)) {
                s.lock.lock();
                try {
                    LockInfo info = s.info(lockName, time.nanoTime(), time);
                    if (info != null) {
                        out.add(info);
                    }
                } finally {
                    s.lock.unlock();
                }
            }
        });
        out.sort(Comparator.comparing(LockInfo::name));
        return out;
    }

    boolean forceRelease(String lockName) {
        checkAvailable(lockName);
        MemorySlot s = slots.get(lockName);
        if (s == null) {
            return false;
        }
        MemoryBackend holder;
        String owner;
        s.lock.lock();
        try {
            if (!s.isHeld(time.nanoTime())) {
                return false;
            }
            holder = Objects.requireNonNull(s.grantor, "a held slot has its grantor");
            owner = s.heldBy();
            s.forcedOwner = owner;
            s.clear();
        } finally {
            s.lock.unlock();
        }
        holder.reportLost(
                lockName, owner, LockLoss.Reason.RELEASED_BY_ADMIN, "released by an administrator (forceRelease)");
        return true;
    }

    /** Virtual clock moved: expire what ran out and tell the holders. */
    private void expireAll() {
        semaphores.expireAll();
        readWrite.expireAll();
        List<Object[]> expired = new ArrayList<>();
        slots.forEach((lockName, s) -> {
            s.lock.lock();
            try {
                long now = time.nanoTime();
                if (s.owner != null && !s.isHeld(now)) {
                    expired.add(new Object[] {s.grantor, lockName, s.owner});
                    s.clear();
                }
            } finally {
                s.lock.unlock();
            }
        });
        for (Object[] e : expired) {
            ((MemoryBackend) e[0])
                    .reportLost(
                            (String) e[1],
                            (String) e[2],
                            LockLoss.Reason.EXPIRED,
                            "lease ran out on the virtual clock");
        }
    }

    void checkAvailable(@Nullable String lockName) {
        if (!available) {
            throw new BackendUnavailableException(
                    description() + " is unavailable (simulated outage)"
                            + (lockName == null ? "" : " for lock '" + lockName + "'"),
                    lockName,
                    description(),
                    null);
        }
    }

    /** The name's slot, made on first use (package-private for the tests that hold its lock). */
    MemorySlot slot(String lockName) {
        MemorySlot s = slots.get(lockName);
        return s != null ? s : slots.computeIfAbsent(lockName, n -> new MemorySlot());
    }

    @Override
    public String toString() {
        return "MemoryStore[" + description() + ", " + slots.size() + " names]";
    }
}

package io.latchkey.mem;

import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.SemaphoreCounts;
import io.latchkey.spi.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/*
 * The semaphores of one MemoryStore: a namespace of their own, apart from the store's exclusive locks.
 *
 * Concurrency design. One Semaphore per name, each with its own ReentrantLock, as the store's slots. A semaphore
 * keeps its permit count and token counter once created, so tokens never go back and a view opened with another
 * count is refused for the life of the store. Expired holders are dropped when the semaphore is next used
 * (judged by the store's clock); their permits then count as free. A release signals every waiter of that name
 * (several may now fit).
 */
final class MemorySemaphores {
    private final MemoryStore store;
    private final TimeSource time;
    private final ConcurrentHashMap<String, Semaphore> semaphores = new ConcurrentHashMap<>();

    private static final class Semaphore {
        final ReentrantLock lock = new ReentrantLock();
        final Condition changed = lock.newCondition();
        int limit; // 0 until the first acquisition defines it
        long token;
        final Map<String, Holder> holders = new HashMap<>();

        @Nullable
        String forcedOwner;
    }

    private record Holder(int permits, long token, long expiresAt, long validUntil, MemoryBackend grantor) {}

    MemorySemaphores(MemoryStore store, TimeSource time) {
        this.store = store;
        this.time = time;
    }

    AcquireResult tryAcquire(AcquireRequest req, MemoryBackend by) {
        store.checkAvailable(req.name());
        GrantKind kind = req.kind();
        long start = time.nanoTime();
        Semaphore s = semaphore(req.name());
        long now = MemoryStore.lockAt(s.lock, start, time);
        try {
            checkLimit(s, req.name(), kind.limit());
            s.limit = kind.limit(); // defined by the first acquisition, for the life of the store
            int used = dropExpired(s, now);
            Holder mine = s.holders.get(req.owner());
            if (mine != null) { // a retried request: the grant it already has
                return new Grant(req.name(), req.owner(), mine.token, mine.validUntil, null, kind);
            }
            if (used + kind.permits() > s.limit) {
                long soonest = Long.MAX_VALUE;
                for (Holder h : s.holders.values()) {
                    soonest = Math.min(soonest, h.expiresAt - now);
                }
                return new Busy(null, -1, soonest == Long.MAX_VALUE ? null : Duration.ofNanos(Math.max(0, soonest)));
            }
            long validUntil = start + req.lease().toNanos();
            Holder h = new Holder(kind.permits(), ++s.token, now + req.lease().toNanos(), validUntil, by);
            s.holders.put(req.owner(), h);
            return new Grant(req.name(), req.owner(), h.token, validUntil, null, kind);
        } finally {
            s.lock.unlock();
        }
    }

    boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        store.checkAvailable(name);
        Semaphore s = semaphore(name);
        s.lock.lock();
        try {
            return s.changed.awaitNanos(timeout.toNanos()) > 0;
        } finally {
            s.lock.unlock();
        }
    }

    RenewResult renew(Grant grant, Duration lease) {
        store.checkAvailable(grant.name());
        long start = time.nanoTime();
        Semaphore s = semaphore(grant.name());
        s.lock.lock();
        try {
            long now = time.nanoTime(); // the caller's own grant: judged by a reading under the lock
            dropExpired(s, now);
            Holder h = s.holders.get(grant.owner());
            if (h != null && h.token == grant.fencingToken()) {
                s.holders.put(
                        grant.owner(),
                        new Holder(h.permits, h.token, now + lease.toNanos(), start + lease.toNanos(), h.grantor));
                return RenewResult.renewed(start + lease.toNanos());
            }
            return RenewResult.notHeld(
                    grant.owner().equals(s.forcedOwner) ? LockLoss.Reason.RELEASED_BY_ADMIN : LockLoss.Reason.EXPIRED);
        } finally {
            s.lock.unlock();
        }
    }

    boolean release(Grant grant) {
        store.checkAvailable(grant.name());
        Semaphore s = semaphores.get(grant.name());
        if (s == null) {
            return false;
        }
        s.lock.lock();
        try {
            Holder h = s.holders.get(grant.owner());
            if (h == null || h.token != grant.fencingToken()) {
                return false;
            }
            s.holders.remove(grant.owner());
            s.changed.signalAll();
            return h.expiresAt - time.nanoTime() > 0;
        } finally {
            s.lock.unlock();
        }
    }

    int availablePermits(String name, int limit) {
        store.checkAvailable(name);
        Semaphore s = semaphores.get(name);
        if (s == null) {
            return limit;
        }
        s.lock.lock();
        try {
            checkLimit(s, name, limit);
            return limit - dropExpired(s, time.nanoTime());
        } finally {
            s.lock.unlock();
        }
    }

    /** The virtual clock moved: drop what ran out and tell the holders, as the store does for its locks. */
    void expireAll() {
        List<Object[]> expired = new ArrayList<>();
        semaphores.forEach((name, s) -> {
            s.lock.lock();
            try {
                long now = time.nanoTime();
                s.holders.forEach((owner, h) -> {
                    if (h.expiresAt - now <= 0) {
                        expired.add(new Object[] {h.grantor, name, owner});
                    }
                });
                dropExpired(s, now);
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

    /** Wakes every waiter (the store came back from an outage). */
    void signalAll() {
        for (Semaphore s : semaphores.values()) {
            s.lock.lock();
            try {
                s.changed.signalAll();
            } finally {
                s.lock.unlock();
            }
        }
    }

    /** Drops holders whose lease ran out (waking waiters if any went) and returns the permits still held. */
    private static int dropExpired(Semaphore s, long now) {
        boolean dropped = s.holders.values().removeIf(h -> h.expiresAt - now <= 0);
        if (dropped) {
            s.changed.signalAll();
        }
        int used = 0;
        for (Holder h : s.holders.values()) {
            used += h.permits;
        }
        return used;
    }

    private void checkLimit(Semaphore s, String name, int limit) {
        if (s.limit != 0 && s.limit != limit) {
            throw SemaphoreCounts.conflict(name, store.description(), s.limit, limit);
        }
    }

    private Semaphore semaphore(String name) {
        Semaphore s = semaphores.get(name);
        return s != null ? s : semaphores.computeIfAbsent(name, n -> new Semaphore());
    }
}

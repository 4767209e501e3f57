package io.latchkey.mem;

import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.RenewResult;
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
 * The read-write locks of one MemoryStore: a namespace of their own, apart from its locks and semaphores.
 *
 * Concurrency design. One Entry per name with its own ReentrantLock, as the store's slots. A grant is a Holder
 * (token, expiry) in `readers` or `writers` (at most one valid writer); `intents` holds the writers that found the
 * lock busy, each until its expiry, so that new readers wait (writer preference). Expired holders and intents are
 * dropped whenever the entry is used, judged by the store's clock. The token counter is kept for the life of the
 * store, shared by both sides. A release, a withdrawal or a drop signals every waiter of the name.
 */
final class MemoryReadWrite {
    private final MemoryStore store;
    private final TimeSource time;
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

    private static final class Entry {
        final ReentrantLock lock = new ReentrantLock();
        final Condition changed = lock.newCondition();
        long token;
        final Map<String, Holder> readers = new HashMap<>();
        final Map<String, Holder> writers = new HashMap<>();
        final Map<String, Long> intents = new HashMap<>();
    }

    private record Holder(long token, long expiresAt, long validUntil, MemoryBackend grantor) {}

    MemoryReadWrite(MemoryStore store, TimeSource time) {
        this.store = store;
        this.time = time;
    }

    AcquireResult tryAcquire(AcquireRequest req, MemoryBackend by) {
        store.checkAvailable(req.name());
        long start = time.nanoTime();
        Entry e = entry(req.name());
        long now = MemoryStore.lockAt(e.lock, start, time);
        try {
            drop(e, now);
            boolean write = req.kind().type() == GrantKind.Type.WRITE;
            Map<String, Holder> side = write ? e.writers : e.readers;
            Holder mine = side.get(req.owner());
            if (mine != null) { // a retried request: the grant it already has
                return grant(req, mine);
            }
            boolean free =
                    write ? e.writers.isEmpty() && e.readers.isEmpty() : e.writers.isEmpty() && e.intents.isEmpty();
            if (!free) {
                if (write) {
                    e.intents.put(req.owner(), now + req.lease().toNanos()); // new readers wait for this writer
                }
                return Busy.UNKNOWN;
            }
            if (write) {
                e.intents.remove(req.owner());
            }
            Holder h = new Holder(
                    ++e.token, now + req.lease().toNanos(), start + req.lease().toNanos(), by);
            side.put(req.owner(), h);
            return grant(req, h);
        } finally {
            e.lock.unlock();
        }
    }

    private static Grant grant(AcquireRequest req, Holder h) {
        return new Grant(req.name(), req.owner(), h.token, h.validUntil, null, req.kind());
    }

    /** Turns the write grant into a read grant of {@code read}'s owner under the entry's lock (LockBackend.downgrade). */
    @Nullable
    Grant downgrade(Grant write, AcquireRequest read, MemoryBackend by) {
        store.checkAvailable(write.name());
        long start = time.nanoTime();
        Entry e = entry(write.name());
        e.lock.lock();
        try {
            long now = time.nanoTime(); // the caller's own grant: judged by a reading under the lock
            drop(e, now);
            Holder w = e.writers.get(write.owner());
            if (w == null || w.token != write.fencingToken()) {
                return null;
            }
            e.writers.remove(write.owner());
            Holder h = new Holder(
                    ++e.token,
                    now + read.lease().toNanos(),
                    start + read.lease().toNanos(),
                    by);
            e.readers.put(read.owner(), h);
            e.changed.signalAll(); // readers may join now
            return grant(read, h);
        } finally {
            e.lock.unlock();
        }
    }

    void withdraw(AcquireRequest req) {
        Entry e = entries.get(req.name());
        if (e == null) {
            return;
        }
        e.lock.lock();
        try {
            if (e.intents.remove(req.owner()) != null) {
                e.changed.signalAll();
            }
        } finally {
            e.lock.unlock();
        }
    }

    boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        store.checkAvailable(name);
        Entry e = entry(name);
        e.lock.lock();
        try {
            return e.changed.awaitNanos(timeout.toNanos()) > 0;
        } finally {
            e.lock.unlock();
        }
    }

    RenewResult renew(Grant grant, Duration lease) {
        store.checkAvailable(grant.name());
        long start = time.nanoTime();
        Entry e = entry(grant.name());
        e.lock.lock();
        try {
            long now = time.nanoTime(); // the caller's own grant: judged by a reading under the lock
            drop(e, now);
            Map<String, Holder> side = sideOf(e, grant);
            Holder h = side.get(grant.owner());
            if (h == null || h.token != grant.fencingToken()) {
                return RenewResult.notHeld(LockLoss.Reason.EXPIRED);
            }
            side.put(grant.owner(), new Holder(h.token, now + lease.toNanos(), start + lease.toNanos(), h.grantor));
            return RenewResult.renewed(start + lease.toNanos());
        } finally {
            e.lock.unlock();
        }
    }

    boolean release(Grant grant) {
        store.checkAvailable(grant.name());
        Entry e = entries.get(grant.name());
        if (e == null) {
            return false;
        }
        e.lock.lock();
        try {
            Map<String, Holder> side = sideOf(e, grant);
            Holder h = side.get(grant.owner());
            if (h == null || h.token != grant.fencingToken()) {
                return false;
            }
            side.remove(grant.owner());
            e.changed.signalAll();
            return h.expiresAt - time.nanoTime() > 0;
        } finally {
            e.lock.unlock();
        }
    }

    /** The virtual clock moved: drop what ran out and tell the holders. */
    void expireAll() {
        List<Object[]> expired = new ArrayList<>();
        entries.forEach((name, e) -> {
            e.lock.lock();
            try {
                long now = time.nanoTime();
                for (Map<String, Holder> side : List.of(e.readers, e.writers)) {
                    side.forEach((owner, h) -> {
                        if (h.expiresAt - now <= 0) {
                            expired.add(new Object[] {h.grantor, name, owner});
                        }
                    });
                }
                drop(e, now);
            } finally {
                e.lock.unlock();
            }
        });
        for (Object[] x : expired) {
            ((MemoryBackend) x[0])
                    .reportLost(
                            (String) x[1],
                            (String) x[2],
                            LockLoss.Reason.EXPIRED,
                            "lease ran out on the virtual clock");
        }
    }

    /** Wakes every waiter (the store came back from an outage). */
    void signalAll() {
        for (Entry e : entries.values()) {
            e.lock.lock();
            try {
                e.changed.signalAll();
            } finally {
                e.lock.unlock();
            }
        }
    }

    private static Map<String, Holder> sideOf(Entry e, Grant grant) {
        return grant.kind().type() == GrantKind.Type.WRITE ? e.writers : e.readers;
    }

    private static void drop(Entry e, long now) {
        boolean dropped = e.readers.values().removeIf(h -> h.expiresAt - now <= 0);
        dropped |= e.writers.values().removeIf(h -> h.expiresAt - now <= 0);
        dropped |= e.intents.values().removeIf(until -> until - now <= 0);
        if (dropped) {
            e.changed.signalAll();
        }
    }

    private Entry entry(String name) {
        Entry e = entries.get(name);
        return e != null ? e : entries.computeIfAbsent(name, n -> new Entry());
    }
}

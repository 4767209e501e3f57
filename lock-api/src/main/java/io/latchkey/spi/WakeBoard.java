package io.latchkey.spi;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/*
 * Concurrency design. A backend whose store pushes release notifications to one listening thread (PostgreSQL's
 * LISTEN, MongoDB's change stream) hands each one to signal(key); waiter threads park in await. No wake-up may be
 * lost between a waiter's busy attempt and its park, so:
 * - every notification gets a sequence number, recorded per key in lastNotified before any waiter is signalled
 *   (under that key's waiter lock);
 * - a waiter passes the sequence number read BEFORE its attempt was sent (snapshot()), and under its key's lock
 *   returns at once if a newer notification for its key (or a newer wakeAll) is recorded, else parks.
 * Waiters are reference counted through the map's own compute, so a key's entry lives exactly while someone waits
 * on it. lastNotified is pruned to its newest half above PRUNE_ABOVE keys: a pruned key's waiter can only have a
 * snapshot older than the kept ones if it has waited through thousands of releases, and then it loses one wake-up,
 * which costs it one backoff, never correctness. No I/O happens here.
 */
/**
 * The per-key wake-ups of a backend whose store notifies one listening thread of releases: the listener calls
 * {@link #signal(String)}, a waiter {@link #await(String, Duration, long)} with the {@link #snapshot()} it took
 * before the attempt that found the lock busy, so a release between that attempt and the wait is never missed.
 * Thread-safe.
 */
public final class WakeBoard {
    private static final int PRUNE_ABOVE = 4096;

    private final AtomicLong sequence = new AtomicLong();
    private final ConcurrentHashMap<String, Long> lastNotified = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Waiter> waiters = new ConcurrentHashMap<>();
    private volatile long wokeAllAt;

    /** The waiters of one key in this client; close it when the wait is over. */
    public final class Waiter implements AutoCloseable {
        private final String key;
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private int users; // guarded by the map's bin lock

        private Waiter(String key) {
            this.key = key;
        }

        /**
         * Waits until a release of this key (or a {@link #wakeAll()}) is recorded after {@code since}, or the
         * timeout passes.
         *
         * @param timeoutNanos the longest wait
         * @param since the {@link #snapshot()} taken before the attempt that found the lock busy
         * @return true if woken by a notification, false on timeout
         * @throws InterruptedException if the thread is interrupted while waiting
         */
        public boolean await(long timeoutNanos, long since) throws InterruptedException {
            long left = timeoutNanos;
            lock.lockInterruptibly();
            try {
                for (; ; ) {
                    Long last = lastNotified.get(key);
                    if ((last != null && last > since) || wokeAllAt > since) {
                        return true;
                    }
                    if (left <= 0) {
                        return false;
                    }
                    left = changed.awaitNanos(left);
                }
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void close() {
            waiters.computeIfPresent(key, (k, v) -> --v.users == 0 ? null : v);
        }

        private void wake(boolean all) {
            lock.lock();
            try {
                if (all) {
                    changed.signalAll();
                } else {
                    changed.signal();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * The sequence number to pass to {@link Waiter#await} for an attempt about to be sent.
     *
     * @return the current sequence number
     */
    public long snapshot() {
        return sequence.get();
    }

    /**
     * Registers a waiter for {@code key}; close it when it stops waiting.
     *
     * @param key the lock's key as the notifications name it
     * @return the key's waiter, shared by this client's threads waiting on the same key
     */
    public Waiter register(String key) {
        return waiters.compute(key, (k, v) -> {
            Waiter x = v == null ? new Waiter(k) : v;
            x.users++;
            return x;
        });
    }

    /**
     * Waits for a notification of {@code key} after {@code since}, registered for the wait only.
     *
     * @param key the lock's key
     * @param timeout the longest wait
     * @param since the {@link #snapshot()} taken before the attempt that found the lock busy
     * @return true if woken by a notification, false on timeout
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public boolean await(String key, Duration timeout, long since) throws InterruptedException {
        try (Waiter w = register(key)) {
            return w.await(timeout.toNanos(), since);
        }
    }

    /**
     * Records a release of {@code key} and wakes one of this client's threads waiting on it.
     *
     * @param key the released lock's key
     * @return whether a waiter was registered for the key (false: the notification reached no one here)
     */
    public boolean signal(String key) {
        long seq = sequence.incrementAndGet();
        lastNotified.put(key, seq);
        Waiter w = waiters.get(key);
        if (w != null) {
            w.wake(false);
        }
        if (lastNotified.size() > PRUNE_ABOVE) {
            long keepFrom = seq - PRUNE_ABOVE / 2;
            lastNotified.values().removeIf(s -> s < keepFrom);
        }
        return w != null;
    }

    /**
     * Wakes every waiter, whatever its key: notifications may have been missed (the listener reconnected), so
     * each waiter should look again.
     */
    public void wakeAll() {
        wokeAllAt = sequence.incrementAndGet();
        waiters.values().forEach(w -> w.wake(true));
    }
}

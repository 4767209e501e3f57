package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * LISTEN/NOTIFY wake-ups for PostgreSQL lease mode: ONE listening connection and one daemon thread per
 * client (backend), whatever the number of waiters. Every release and forced release sends
 * pg_notify(channel, "namespace/name") in the releasing statement; the listener turns it into a signal.
 *
 * Concurrency design. No wake-up may be lost between a waiter's busy attempt and its wait. So:
 * - every notification gets a sequence number, recorded per key in `lastNotified` before any waiter is
 *   signalled (under that key's waiter lock);
 * - a waiter passes the sequence number read BEFORE its attempt was sent (`snapshot()`), and under its
 *   key's lock returns at once if a newer notification is recorded, else awaits the condition.
 * One notification signals one waiter of this client (signal, not signalAll): the core sends one contender
 * per name per client anyway. `lastNotified` is pruned of old entries so it stays small.
 * If the listening connection fails it is replaced with backoff; waiters meanwhile fall back to their
 * timeouts, which the core bounds by its retry strategy.
 */
final class PgWakeups implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PgWakeups.class);
    private static final int POLL_MILLIS = 500;
    private static final int PRUNE_ABOVE = 4096;

    private final Connections connections;
    private final String channel;
    private final AtomicLong sequence = new AtomicLong();
    private final ConcurrentHashMap<String, Long> lastNotified = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Waiter> waiters = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean closed;
    private volatile Connection listening;

    private static final class Waiter {
        final ReentrantLock lock = new ReentrantLock();
        final Condition changed = lock.newCondition();
        int users; // guarded by the map's bin lock
    }

    PgWakeups(Connections connections, String channel) {
        this.connections = connections;
        this.channel = channel;
        this.thread = new Thread(this::run, "latchkey-jdbc-listen-" + channel);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** The sequence number to pass to {@link #await} for an attempt about to be sent. */
    long snapshot() {
        return sequence.get();
    }

    /** Waits until a release of {@code key} is notified after {@code since}, or the timeout passes. */
    boolean await(String key, Duration timeout, long since) throws InterruptedException {
        Waiter w = waiters.compute(key, (k, v) -> {
            Waiter x = v == null ? new Waiter() : v;
            x.users++;
            return x;
        });
        try {
            long left = timeout.toNanos();
            w.lock.lockInterruptibly();
            try {
                for (;;) {
                    Long last = lastNotified.get(key);
                    if (last != null && last > since) {
                        return true;
                    }
                    if (left <= 0) {
                        return false;
                    }
                    left = w.changed.awaitNanos(left);
                }
            } finally {
                w.lock.unlock();
            }
        } finally {
            waiters.computeIfPresent(key, (k, v) -> --v.users == 0 ? null : v);
        }
    }

    private void notified(String key) {
        long seq = sequence.incrementAndGet();
        lastNotified.put(key, seq);
        Waiter w = waiters.get(key);
        if (w != null) {
            w.lock.lock();
            try {
                w.changed.signal();
            } finally {
                w.lock.unlock();
            }
        }
        if (lastNotified.size() > PRUNE_ABOVE) {
            long keepFrom = seq - PRUNE_ABOVE / 2;
            lastNotified.values().removeIf(s -> s < keepFrom);
        }
    }

    private void run() {
        long backoff = 50;
        while (!closed) {
            Connection c = null;
            try {
                c = connections.borrow();
                if (!c.getAutoCommit()) {
                    c.setAutoCommit(true);
                }
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN \"" + channel + "\"");
                }
                listening = c;
                PGConnection pg = c.unwrap(PGConnection.class);
                backoff = 50;
                while (!closed) {
                    PGNotification[] batch = pg.getNotifications(POLL_MILLIS);
                    if (batch != null) {
                        for (PGNotification n : batch) {
                            if (channel.equals(n.getName())) {
                                notified(n.getParameter());
                            }
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!closed) {
                    log.debug("LISTEN connection for {} failed; reconnecting in {} ms", connections.description, backoff, e);
                }
            } finally {
                listening = null;
                connections.discard(c);
            }
            if (!closed) {
                try {
                    TimeUnit.MILLISECONDS.sleep(backoff);
                } catch (InterruptedException e) {
                    return;
                }
                backoff = Math.min(1000, backoff * 2);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        Connection c = listening;
        if (c != null) {
            try {
                c.abort(Runnable::run); // ends the blocking read at once; the pool then drops the connection
            } catch (SQLException | RuntimeException e) {
                log.debug("aborting the LISTEN connection of {} failed", connections.description, e);
            }
        }
    }
}

package io.latchkey.jdbc;

import io.latchkey.spi.DaemonThreads;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * LISTEN/NOTIFY wake-ups for PostgreSQL lease mode: ONE listening connection and one daemon thread per
 * client (backend), whatever the number of waiters.
 *
 * Who is woken. The listening connection LISTENs on a channel of its own, "latchkey_w<pid>" (pid = its
 * server process id). A waiter that finds the lock busy appends that pid to the lock row's `waiting` queue
 * in the same statement (LeaseStatements); a release sends ONE pg_notify, to the first pid in the queue whose
 * session is still alive, with the payload "namespace/name". So one release wakes one waiting client, and a
 * release with nobody queued sends nothing: uncontended locks cost the listeners nothing.
 *
 * No wake-up may be lost between a waiter's busy attempt and its wait, so:
 * - every notification gets a sequence number, recorded per key in `lastNotified` before any waiter is
 *   signalled (under that key's waiter lock);
 * - a waiter passes the sequence number read BEFORE its attempt was sent (`snapshot()`), and under its
 *   key's lock returns at once if a newer notification is recorded, else awaits the condition.
 * A waiter registers its key here ({@link #register}) before its first attempt and unregisters only after
 * it left the row's queue (granted, or the leave statement ran). So a notification for a key with no
 * registered waiter is stale (its waiter failed without leaving): the queue entry is removed and the
 * wake-up passed on to the next pid (`passOn`), so a stale entry never strands the other waiters.
 * If the listening connection fails it is replaced with backoff; waiters meanwhile poll (LeaseBackend).
 */
final class PgWaiting implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PgWaiting.class);
    private static final int POLL_MILLIS = 500;
    private static final int PRUNE_ABOVE = 4096;

    private final JdbcConnections connections;
    private final BiConsumer<String, Integer> passOn;
    private final AtomicLong sequence = new AtomicLong();
    private final ConcurrentHashMap<String, Long> lastNotified = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Waiter> waiters = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean closed;
    private volatile Connection listening;
    private volatile int pid;

    /** The waiters of one key in this client (the core sends one contender per name per client). */
    final class Waiter implements AutoCloseable {
        private final String key;
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private int users; // guarded by the map's bin lock

        private Waiter(String key) {
            this.key = key;
        }

        /** Waits until a release of this key is notified after {@code since}, or the timeout passes. */
        boolean await(long timeoutNanos, long since) throws InterruptedException {
            long left = timeoutNanos;
            lock.lockInterruptibly();
            try {
                for (; ; ) {
                    Long last = lastNotified.get(key);
                    if (last != null && last > since) {
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
    }

    /**
     * @param passOn runs the leave statement for (key, pid): a notification reached this client for a key
     *               it no longer waits for
     */
    PgWaiting(JdbcConnections connections, String name, BiConsumer<String, Integer> passOn) {
        this.connections = connections;
        this.passOn = passOn;
        this.thread = DaemonThreads.start("latchkey-jdbc-listen-" + name, this::run);
    }

    /** The channel a listening session with this pid LISTENs on (and a release notifies). */
    static String channel(int pid) {
        return "latchkey_w" + pid;
    }

    /** The server pid of the listening connection, 0 while there is none (waiters then poll). */
    int pid() {
        return pid;
    }

    /** The sequence number to pass to {@link Waiter#await} for an attempt about to be sent. */
    long snapshot() {
        return sequence.get();
    }

    /** Registers a waiter for {@code key} ("namespace/name"); close it after leaving the row's queue. */
    Waiter register(String key) {
        return waiters.compute(key, (k, v) -> {
            Waiter x = v == null ? new Waiter(k) : v;
            x.users++;
            return x;
        });
    }

    /** Waits for a notification of {@code key} after {@code since} without being registered (awaitChange). */
    boolean await(String key, Duration timeout, long since) throws InterruptedException {
        try (Waiter w = register(key)) {
            return w.await(timeout.toNanos(), since);
        }
    }

    private void notified(String key, int myPid) {
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
        } else {
            try {
                passOn.accept(key, myPid);
            } catch (RuntimeException e) {
                log.debug(
                        "passing on a wake-up for {} on {} failed; the next waiter will poll",
                        key,
                        connections.description,
                        e);
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
                int me;
                try (Statement s = c.createStatement()) {
                    try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                        rs.next();
                        me = rs.getInt(1);
                    }
                    s.execute("LISTEN \"" + channel(me) + "\"");
                }
                String channel = channel(me);
                listening = c;
                pid = me;
                PGConnection pg = c.unwrap(PGConnection.class);
                backoff = 50;
                while (!closed) {
                    PGNotification[] batch = pg.getNotifications(POLL_MILLIS);
                    if (batch != null) {
                        for (PGNotification n : batch) {
                            if (channel.equals(n.getName())) {
                                notified(n.getParameter(), me);
                            }
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!closed) {
                    log.debug(
                            "LISTEN connection for {} failed; reconnecting in {} ms",
                            connections.description,
                            backoff,
                            e);
                }
            } finally {
                pid = 0;
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

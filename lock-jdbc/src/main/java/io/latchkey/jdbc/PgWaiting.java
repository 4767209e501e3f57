package io.latchkey.jdbc;

import io.latchkey.spi.DaemonThreads;
import io.latchkey.spi.WakeBoard;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
 * No wake-up may be lost between a waiter's busy attempt and its wait: the spi's WakeBoard records each
 * notification's sequence number per key, and a waiter passes the snapshot it took before its attempt.
 * A waiter registers its key ({@link #register}) before its first attempt and unregisters only after
 * it left the row's queue (granted, or the leave statement ran). So a notification for a key with no
 * registered waiter is stale (its waiter failed without leaving): the queue entry is removed and the
 * wake-up passed on to the next pid (`passOn`), so a stale entry never strands the other waiters.
 * If the listening connection fails it is replaced with backoff; waiters meanwhile poll (LeaseBackend).
 */
final class PgWaiting implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PgWaiting.class);
    private static final int POLL_MILLIS = 500;

    private final JdbcConnections connections;
    private final BiConsumer<String, Integer> passOn;
    private final WakeBoard board = new WakeBoard();
    private final Thread thread;
    private volatile boolean closed;
    private volatile Connection listening;
    private volatile int pid;

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

    /** The sequence number to pass to {@link WakeBoard.Waiter#await} for an attempt about to be sent. */
    long snapshot() {
        return board.snapshot();
    }

    /** Registers a waiter for {@code key} ("namespace/name"); close it after leaving the row's queue. */
    WakeBoard.Waiter register(String key) {
        return board.register(key);
    }

    /** Waits for a notification of {@code key} after {@code since} without being registered (awaitChange). */
    boolean await(String key, Duration timeout, long since) throws InterruptedException {
        return board.await(key, timeout, since);
    }

    private void notified(String key, int myPid) {
        if (!board.signal(key)) {
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

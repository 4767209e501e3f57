package io.latchkey.jdbc;

import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/*
 * Read-write locks in session mode, on PostgreSQL (SQL in PgSessionStatements): a grant pins one pooled connection
 * whose session holds the name's read-write advisory key (LockKey of "<table>_rw", apart from the lock's key),
 * shared for a reader and exclusive for a writer, as a session-mode lock does. PostgreSQL's lock manager queues the
 * waiters, and a waiting exclusive request keeps later shared requests out, try forms included: writer preference
 * with no record of ours to withdraw. Tokens come from the sequence <table>_rw_tokens, drawn by the statement that
 * took the lock (only if it did). Renewal is the lock's: the session still holds the key in pg_locks.
 *
 * Concurrency: as SessionBackend (a hold's connection is used only under the hold's lock); no state of its own.
 */
final class SessionReadWrite {
    private final SessionBackend backend;
    private final PgSessionStatements sql;
    private final SessionWaiting waiting;

    SessionReadWrite(SessionBackend backend, PgSessionStatements sql, SessionWaiting waiting) {
        this.backend = backend;
        this.sql = sql;
        this.waiting = waiting;
    }

    /** The advisory key of read-write lock {@code name}: never the key of the exclusive lock of that name. */
    LockKey key(String name) {
        return LockKey.of(backend.table + "_rw", backend.namespace, name);
    }

    AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        LockKey k = key(request.name());
        boolean write = request.kind().type() == GrantKind.Type.WRITE;
        long start = System.nanoTime();
        Connection c = null;
        boolean keep = false;
        boolean waited = false;
        try {
            c = backend.borrowPinned();
            long token = sql.tryReadWrite(c, k, write);
            if (token < 0 && !maxWait.isZero()) {
                waited = true;
                Connection pinned = c;
                token = waiting.inDatabase(
                        pinned,
                        (waitMillis, running) -> sql.waitReadWrite(pinned, k, write, running),
                        () -> unlock(pinned, k, write),
                        maxWait,
                        new AtomicBoolean(),
                        false,
                        abandoned -> backend.putBackAfterWait(
                                abandoned, k, request.owner(), () -> unlock(abandoned, k, write)));
                if (token == SessionWaiting.HANDED_OFF) {
                    c = null; // the waiting thread returns it
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for " + (write ? "write" : "read")
                            + " lock '" + request.name() + "' on " + backend.description());
                }
            }
            if (token < 0) {
                return Busy.UNKNOWN;
            }
            SessionHold hold = SessionHold.pinned(k, c);
            backend.track(hold);
            keep = true;
            return new Grant(
                    request.name(),
                    request.owner(),
                    token,
                    JdbcLockBackend.validUntil(start, request.lease()),
                    hold,
                    request.kind());
        } catch (SQLException e) {
            throw backend.connections.unavailable("acquire", request.name(), e);
        } finally {
            if (!keep && c != null) {
                Connection left = c;
                if (waited) {
                    backend.putBackAfterWait(left, k, request.owner(), () -> unlock(left, k, write));
                } else {
                    backend.putBack(left);
                }
            }
        }
    }

    /** Lets go of the session's hold of the key, shared or exclusive; false if it held none. */
    boolean unlock(Connection c, LockKey k, boolean write) throws SQLException {
        return write ? sql.unlock(c, k) : sql.unlockShared(c, k);
    }

    /**
     * One statement on the write grant's connection (PgSessionStatements.downgrade); the connection then belongs
     * to the read grant. Null if the session no longer held the write lock.
     */
    Grant downgrade(Grant write, AcquireRequest read) {
        SessionHold hold = (SessionHold) write.state();
        long start = System.nanoTime();
        hold.lock.lock();
        try {
            if (hold.ended || hold.isAdopted()) {
                return null;
            }
            long token;
            try {
                token = sql.downgrade(hold.connection, hold.key);
            } catch (SQLException e) {
                throw backend.connections.unavailable("downgrade", write.name(), e);
            }
            if (token < 0) {
                return null;
            }
            SessionHold readHold = SessionHold.pinned(hold.key, hold.connection);
            hold.ended = true; // its connection is the read grant's now
            backend.untrack(hold);
            backend.track(readHold);
            return new Grant(
                    read.name(),
                    read.owner(),
                    token,
                    JdbcLockBackend.validUntil(start, read.lease()),
                    readHold,
                    read.kind());
        } finally {
            hold.lock.unlock();
        }
    }
}

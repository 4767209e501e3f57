package io.latchkey.jdbc;

import io.latchkey.LockInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/*
 * The statements of session mode, one subclass per dialect. The lock itself is a database lock bound to one
 * connection:
 * - PostgreSQL (PgSessionStatements): a session-level advisory lock on a 64-bit key derived from (table,
 *   namespace, name). Acquire is ONE statement: INSERT ... SELECT ... WHERE pg_try_advisory_lock(key) ON
 *   CONFLICT DO UPDATE, which takes the lock and, only if it got it, records owner and holder pid and bumps the
 *   row's token in a committed write (a rollback cannot undo it). The waiting form takes pg_advisory_lock(key)
 *   in a CTE: the server queues the waiter. Release is SELECT pg_advisory_unlock(key).
 * - MariaDB/MySQL (MariaDbSessionStatements): the same shape with GET_LOCK(name, timeout) / RELEASE_LOCK(name);
 *   the token comes back through LAST_INSERT_ID(expr) in the OK packet.
 * - H2 (H2SessionStatements): a row lock held by an open transaction: UPDATE ... SET owner, token = NEXT VALUE
 *   FOR the token sequence (sequences are not rolled back); LOCK_TIMEOUT 0 for a try, the wait as the lock
 *   timeout; release is ROLLBACK. Other sessions read the holder with READ UNCOMMITTED.
 * A held grant is visible to others only while its session holds the database lock: the row alone may be
 * stale (session ended), so inspect joins the row with the database's own lock table.
 * Stateless apart from SQL text and H2's per-connection lock timeout cache; safe to share between threads.
 */
abstract sealed class SessionStatements extends SqlTable
        permits PgSessionStatements, MariaDbSessionStatements, H2SessionStatements {
    /** Who holds a lock, as the database says. */
    record Holder(String owner, long token, Instant acquiredAt, long session) {}

    private static final long KILL_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final String releasedBySql;
    private final String markSql;

    SessionStatements(String table, Dialect dialect) {
        super(table, dialect);
        releasedBySql = "SELECT released_by FROM " + table + " WHERE ns = ? AND name = ?";
        markSql = "UPDATE " + table + " SET released_by = ? WHERE ns = ? AND name = ?";
    }

    /** The statements of a dialect. */
    static SessionStatements of(String table, Dialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> new PgSessionStatements(table);
            case MARIADB -> new MariaDbSessionStatements(table);
            case H2 -> new H2SessionStatements(table);
        };
    }

    /** Prepares a connection taken from the pool to hold a lock. */
    void pin(Connection c) throws SQLException {
        if (!c.getAutoCommit()) {
            c.setAutoCommit(true);
        }
    }

    /** Makes a pinned connection fit to go back to the pool (it holds no lock any more). */
    void unpin(Connection c, boolean transactionEnded) throws SQLException {
        // an autocommit connection holds nothing once its lock is let go
    }

    /**
     * Whether statements run on the caller's thread (embedded H2), which may swallow an interrupt that arrives
     * inside them: a waiting acquisition then runs wholly on a worker.
     */
    boolean runsOnCallerThread() {
        return false;
    }

    /**
     * Whether a database lock outlives the statement that took it (advisory and user locks do): a wait that
     * was cancelled or failed may have taken it in the same instant, so it must be let go explicitly.
     */
    boolean lockOutlivesStatement() {
        return true;
    }

    /** Ends the holder's session and marks the row as released by an administrator, in the order the lock needs. */
    void forceOut(Connection c, LockKey k, Holder h) throws SQLException {
        markReleasedBy(c, k, h.owner());
        kill(c, h.session());
    }

    /** One attempt without waiting; the token if the lock was taken, else -1. */
    abstract long tryLock(Connection c, LockKey k, String owner) throws SQLException;

    /**
     * Waits in the database up to {@code waitMillis}; the token if taken, else -1. The running statement is
     * published in {@code running} so that another thread can cancel it.
     */
    abstract long waitLock(
            Connection c,
            LockKey k,
            String owner,
            long waitMillis,
            AtomicReference<Statement> running,
            AtomicBoolean cancelled)
            throws SQLException;

    /** Whether this pinned connection still holds the lock for {@code owner}. Throws if the connection is dead. */
    abstract boolean stillHeld(Connection c, LockKey k, String owner) throws SQLException;

    /** Lets go of the database lock held by this connection; true if it held it. */
    abstract boolean unlock(Connection c, LockKey k) throws SQLException;

    /** The live holder of a lock, read on any (autocommit) connection. */
    abstract Optional<Holder> holder(Connection c, LockKey k) throws SQLException;

    /** Binds a dialect's own parameters of its holder query, after namespace (1) and name (2). */
    interface KeyParameters {
        void bind(PreparedStatement ps, LockKey k) throws SQLException;
    }

    /** Runs a dialect's holder query: one row (owner, token, acquired_at, holder_session) or none. */
    final Optional<Holder> readHolder(Connection c, String sql, LockKey k, KeyParameters more) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            setName(ps, 1, k.namespace());
            setName(ps, 2, k.name());
            more.bind(ps, k);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(new Holder(rs.getString(1), rs.getLong(2), getInstant(rs, 3), rs.getLong(4)))
                        : Optional.empty();
            }
        }
    }

    /** The live locks whose names start with {@code prefix}, by name. */
    abstract List<LockInfo> list(Connection c, String table, String namespace, String prefix) throws SQLException;

    /** The database session id of a connection (backend pid, connection id, H2 session id). */
    abstract long sessionId(Connection c) throws SQLException;

    /** Ends another database session server-side and waits until it is gone (so its locks are free). */
    abstract void kill(Connection c, long session) throws SQLException;

    /** Who an administrator last forced out of this lock, if anyone. */
    String releasedBy(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(releasedBySql)) {
            setName(ps, 1, k.namespace());
            setName(ps, 2, k.name());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    void markReleasedBy(Connection c, LockKey k, String owner) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(markSql)) {
            ps.setString(1, owner);
            setName(ps, 2, k.namespace());
            setName(ps, 3, k.name());
            ps.executeUpdate();
        }
    }

    /** The rows of {@code listSql} (name, owner, token, acquired_at, holder_session): the candidates of a list. */
    List<Candidate> candidates(Connection c, String listSql, String namespace, String prefix) throws SQLException {
        List<Candidate> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(listSql)) {
            setName(ps, 1, namespace);
            setName(ps, 2, SqlNames.likePrefix(prefix));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Candidate(
                            getName(rs, 1),
                            new Holder(rs.getString(2), rs.getLong(3), getInstant(rs, 4), rs.getLong(5))));
                }
            }
        }
        return out;
    }

    /** A row of the table that may be held. */
    record Candidate(String name, Holder holder) {}

    /** The session id of a connection by {@code sql}. */
    static long sessionId(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void awaitGone(Connection c, String sql, long session) throws SQLException {
        long deadline = System.nanoTime() + KILL_WAIT_NANOS;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, session);
            while (System.nanoTime() - deadline < 0) {
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next() || rs.getLong(1) == 0) {
                        return;
                    }
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // the server ends the session asynchronously
            }
        }
    }
}

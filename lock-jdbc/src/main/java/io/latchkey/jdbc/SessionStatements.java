package io.latchkey.jdbc;

import io.latchkey.LockInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/*
 * The statements of session mode. The lock itself is a database lock bound to one connection:
 * - PostgreSQL: a session-level advisory lock on a 64-bit key derived from (table, namespace, name). Acquire
 *   is ONE statement: INSERT ... SELECT ... WHERE pg_try_advisory_lock(key) ON CONFLICT DO UPDATE, which takes
 *   the lock and, only if it got it, records owner and holder pid and bumps the row's token in a committed
 *   write (a rollback cannot undo it). The waiting form takes pg_advisory_lock(key) in a CTE: the server
 *   queues the waiter. Release is SELECT pg_advisory_unlock(key).
 * - MariaDB/MySQL: the same shape with GET_LOCK(name, timeout) / RELEASE_LOCK(name); the token comes back
 *   through LAST_INSERT_ID(expr) in the OK packet.
 * - H2: a row lock held by an open transaction: UPDATE ... SET owner, token = NEXT VALUE FOR the token
 *   sequence (sequences are not rolled back); LOCK_TIMEOUT 0 for a try, the wait as the lock timeout;
 *   release is ROLLBACK. Other sessions read the holder with READ UNCOMMITTED.
 * A held grant is visible to others only while its session holds the database lock: the row alone may be
 * stale (session ended), so inspect joins the row with the database's own lock table.
 * Stateless apart from SQL text and H2's per-connection lock timeout cache; safe to share between threads.
 */
final class SessionTable extends SqlTable {
    /** Who holds a lock, as the database says. */
    record Holder(String owner, long token, Instant acquiredAt, long session) {
    }

    private static final int H2_LOCK_TIMEOUT = 50200;
    /** H2 reads LOCK_TIMEOUT 0 as "the default" (seconds): 1 ms is its shortest real wait. */
    private static final int H2_TRY_MILLIS = 1;
    private static final int H2_WAIT_SLICE_MILLIS = 100;
    private static final long KILL_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final String trySql;
    private final String waitSql;
    private final String stillHeldSql;
    private final String unlockSql;
    private final String holderSql;
    private final String listSql;
    private final String releasedBySql;
    private final String markSql;
    private final String insertRowSql;
    /** H2 only: the LOCK_TIMEOUT last set on each physical connection, so steady state sends no SET. */
    private final Map<Connection, Integer> h2LockTimeouts = Collections.synchronizedMap(new WeakHashMap<>());

    SessionTable(String table, Dialect dialect) {
        super(table, dialect);
        switch (dialect) {
            case POSTGRESQL -> {
                String upsert = " ON CONFLICT (ns, name) DO UPDATE SET owner = EXCLUDED.owner, token = l.token + 1,"
                        + " acquired_at = EXCLUDED.acquired_at, holder_session = EXCLUDED.holder_session, released_by = NULL"
                        + " RETURNING token";
                String insert = "INSERT INTO " + table + " AS l (ns, name, owner, token, acquired_at, holder_session)"
                        + " SELECT CAST(? AS VARCHAR(64)), CAST(? AS TEXT), CAST(? AS TEXT), 1, now(), pg_backend_pid()";
                trySql = insert + " WHERE pg_try_advisory_lock(?)" + upsert;
                waitSql = "WITH w AS (SELECT pg_advisory_lock(?)) " + insert + " FROM w" + upsert;
                String lockOf = "k.locktype = 'advisory' AND k.granted AND k.objsubid = 1 AND k.classid::bigint = ? AND k.objid::bigint = ?";
                stillHeldSql = "SELECT count(*) FROM pg_locks k WHERE " + lockOf + " AND k.pid = pg_backend_pid()";
                unlockSql = "SELECT pg_advisory_unlock(?)";
                holderSql = "SELECT t.owner, t.token, t.acquired_at, t.holder_session FROM " + table + " t WHERE t.ns = ? AND t.name = ?"
                        + " AND EXISTS (SELECT 1 FROM pg_locks k WHERE " + lockOf + " AND k.pid = t.holder_session)";
                listSql = "SELECT t.name, t.owner, t.token, t.acquired_at, k.classid::bigint, k.objid::bigint FROM " + table + " t"
                        + " JOIN pg_locks k ON k.locktype = 'advisory' AND k.granted AND k.objsubid = 1 AND k.pid = t.holder_session"
                        + " WHERE t.ns = ? AND t.name LIKE ? ESCAPE '!' ORDER BY t.name";
            }
            case MARIADB -> {
                String insert = "INSERT INTO " + table + " (ns, name, owner, token, acquired_at, holder_session, released_by)"
                        + " SELECT ?, ?, ?, LAST_INSERT_ID(1), UTC_TIMESTAMP(6), CONNECTION_ID(), NULL FROM DUAL WHERE GET_LOCK(?, ?) = 1"
                        + " ON DUPLICATE KEY UPDATE token = LAST_INSERT_ID(token + 1), owner = VALUES(owner),"
                        + " acquired_at = VALUES(acquired_at), holder_session = VALUES(holder_session), released_by = NULL";
                trySql = insert;
                waitSql = insert;
                stillHeldSql = "SELECT IS_USED_LOCK(?) = CONNECTION_ID()";
                unlockSql = "SELECT RELEASE_LOCK(?)";
                holderSql = "SELECT owner, token, acquired_at, holder_session FROM " + table
                        + " WHERE ns = ? AND name = ? AND holder_session = IS_USED_LOCK(?)";
                listSql = "SELECT name, owner, token, acquired_at, holder_session FROM " + table
                        + " WHERE ns = ? AND name LIKE ? ESCAPE '!' AND owner IS NOT NULL ORDER BY name";
            }
            case H2 -> {
                trySql = "SELECT token FROM FINAL TABLE (UPDATE " + table + " SET owner = ?, token = NEXT VALUE FOR " + table
                        + "_token_seq, acquired_at = CURRENT_TIMESTAMP, holder_session = SESSION_ID(), released_by = NULL"
                        + " WHERE ns = ? AND name = ?)";
                waitSql = trySql;
                stillHeldSql = "SELECT owner FROM " + table + " WHERE ns = ? AND name = ?";
                unlockSql = null; // ROLLBACK
                holderSql = "SELECT owner, token, acquired_at, holder_session FROM " + table
                        + " WHERE ns = ? AND name = ? AND owner IS NOT NULL";
                listSql = "SELECT name, owner, token, acquired_at, holder_session FROM " + table
                        + " WHERE ns = ? AND name LIKE ? ESCAPE '!' AND owner IS NOT NULL ORDER BY name";
            }
            default -> throw new IllegalStateException("unknown dialect " + dialect);
        }
        releasedBySql = "SELECT released_by FROM " + table + " WHERE ns = ? AND name = ?";
        markSql = "UPDATE " + table + " SET released_by = ? WHERE ns = ? AND name = ?";
        insertRowSql = "INSERT INTO " + table + " (ns, name, token) VALUES (?, ?, 0)";
    }

    /** Prepares a connection taken from the pool to hold a lock. */
    void pin(Connection c) throws SQLException {
        if (dialect == Dialect.H2) {
            c.setAutoCommit(false);
        } else if (!c.getAutoCommit()) {
            c.setAutoCommit(true);
        }
    }

    /** Makes a pinned connection fit to go back to the pool (it holds no lock any more). */
    void unpin(Connection c, boolean transactionEnded) throws SQLException {
        if (dialect == Dialect.H2) {
            if (!transactionEnded) {
                c.rollback();
            }
            c.setAutoCommit(true);
        }
    }

    /** One attempt without waiting; the token if the lock was taken, else -1. */
    long tryLock(Connection c, LockKey k, String owner) throws SQLException {
        if (dialect == Dialect.H2) {
            return h2Lock(c, k, owner, H2_TRY_MILLIS, null);
        }
        return lock(c, trySql, k, owner, 0, null);
    }

    /**
     * Waits in the database up to {@code waitMillis}; the token if taken, else -1. The running statement is
     * published in {@code running} so that another thread can cancel it.
     */
    long waitLock(Connection c, LockKey k, String owner, long waitMillis, AtomicReference<Statement> running,
                  java.util.concurrent.atomic.AtomicBoolean cancelled) throws SQLException {
        if (dialect == Dialect.H2) {
            // H2 ignores Statement.cancel while a statement waits for a row lock: wait in slices, so that a
            // cancellation is seen within one slice (each slice still waits inside H2, woken at the commit)
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
            for (;;) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0 || cancelled.get()) {
                    return -1;
                }
                long token = h2Lock(c, k, owner, (int) Math.min(H2_WAIT_SLICE_MILLIS, left), running);
                if (token >= 0) {
                    return token;
                }
            }
        }
        return lock(c, waitSql, k, owner, waitMillis, running);
    }

    private long lock(Connection c, String sql, LockKey k, String owner, long waitMillis, AtomicReference<Statement> running)
            throws SQLException {
        boolean pg = dialect == Dialect.POSTGRESQL;
        try (PreparedStatement ps = pg ? c.prepareStatement(sql) : c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
            if (running != null) {
                running.set(ps);
            }
            if (pg) {
                boolean waiting = sql == waitSql;
                int i = 1;
                if (waiting) {
                    ps.setLong(i++, k.advisoryKey());
                }
                ps.setString(i++, k.namespace());
                ps.setString(i++, k.name());
                ps.setString(i++, owner);
                if (!waiting) {
                    ps.setLong(i, k.advisoryKey());
                }
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : -1;
                }
            }
            setName(ps, 1, k.namespace());
            setName(ps, 2, k.name());
            ps.setString(3, owner);
            ps.setString(4, k.userLockName());
            ps.setLong(5, waitMillis <= 0 ? 0 : Math.max(1, (waitMillis + 999) / 1000));
            if (ps.executeUpdate() == 0) {
                return -1;
            }
            try (ResultSet keys = ps.getGeneratedKeys()) {
                long token = keys.next() ? keys.getLong(1) : 0;
                return token > 0 ? token : -1;
            }
        } finally {
            if (running != null) {
                running.set(null);
            }
        }
    }

    private long h2Lock(Connection c, LockKey k, String owner, int lockTimeoutMillis, AtomicReference<Statement> running)
            throws SQLException {
        setH2LockTimeout(c, lockTimeoutMillis);
        try {
            for (int attempt = 0; attempt < 2; attempt++) {
                try (PreparedStatement ps = c.prepareStatement(trySql)) {
                    if (running != null) {
                        running.set(ps);
                    }
                    ps.setString(1, owner);
                    ps.setString(2, k.namespace());
                    ps.setString(3, k.name());
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            return rs.getLong(1);
                        }
                    }
                } catch (SQLException e) {
                    c.rollback();
                    if (isLockConflict(e)) {
                        return -1;
                    }
                    throw e;
                } finally {
                    if (running != null) {
                        running.set(null);
                    }
                }
                // no row yet: create it (committed, unowned) and lock it on the second pass
                try (PreparedStatement ins = c.prepareStatement(insertRowSql)) {
                    ins.setString(1, k.namespace());
                    ins.setString(2, k.name());
                    ins.executeUpdate();
                    c.commit();
                } catch (SQLException e) {
                    c.rollback();
                    if (!isDuplicate(e)) {
                        throw e;
                    }
                }
            }
            return -1;
        } finally {
            if (lockTimeoutMillis != H2_TRY_MILLIS) {
                setH2LockTimeout(c, H2_TRY_MILLIS);
            }
        }
    }

    private void setH2LockTimeout(Connection c, int millis) throws SQLException {
        Connection physical = c.isWrapperFor(Connection.class) ? c.unwrap(Connection.class) : c;
        Integer current = h2LockTimeouts.get(physical);
        if (current == null || current != millis) {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCK_TIMEOUT " + millis);
            }
            h2LockTimeouts.put(physical, millis);
        }
    }

    /** Lock timeouts, deadlocks and concurrent-update conflicts: someone else has the lock. */
    boolean isLockConflict(SQLException e) {
        String state = e.getSQLState();
        return e.getErrorCode() == H2_LOCK_TIMEOUT || e.getErrorCode() == 90131
                || "40001".equals(state) || "HYT00".equals(state) || "55P03".equals(state);
    }

    private static boolean isDuplicate(SQLException e) {
        return "23505".equals(e.getSQLState()) || (e.getSQLState() != null && e.getSQLState().startsWith("23"));
    }

    /** Whether this pinned connection still holds the lock for {@code owner}. Throws if the connection is dead. */
    boolean stillHeld(Connection c, LockKey k, String owner) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(stillHeldSql)) {
            switch (dialect) {
                case POSTGRESQL -> {
                    ps.setLong(1, k.classId());
                    ps.setLong(2, k.objId());
                }
                case MARIADB -> ps.setString(1, k.userLockName());
                default -> {
                    ps.setString(1, k.namespace());
                    ps.setString(2, k.name());
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return false;
                }
                return dialect == Dialect.H2 ? owner.equals(rs.getString(1)) : rs.getLong(1) > 0;
            }
        }
    }

    /** Lets go of the database lock held by this connection; true if it held it. */
    boolean unlock(Connection c, LockKey k) throws SQLException {
        if (dialect == Dialect.H2) {
            c.rollback(); // ends the transaction and with it the row lock; throws if the session is gone
            return true;
        }
        try (PreparedStatement ps = c.prepareStatement(unlockSql)) {
            if (dialect == Dialect.POSTGRESQL) {
                ps.setLong(1, k.advisoryKey());
            } else {
                ps.setString(1, k.userLockName());
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return false;
                }
                return dialect == Dialect.POSTGRESQL ? rs.getBoolean(1) : rs.getLong(1) == 1;
            }
        }
    }

    /** The live holder of a lock, read on any (autocommit) connection. */
    Optional<Holder> holder(Connection c, LockKey k) throws SQLException {
        int isolation = -1;
        if (dialect == Dialect.H2) {
            isolation = c.getTransactionIsolation();
            c.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED);
        }
        try (PreparedStatement ps = c.prepareStatement(holderSql)) {
            setName(ps, 1, k.namespace());
            setName(ps, 2, k.name());
            if (dialect == Dialect.POSTGRESQL) {
                ps.setLong(3, k.classId());
                ps.setLong(4, k.objId());
            } else if (dialect == Dialect.MARIADB) {
                ps.setString(3, k.userLockName());
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Holder(rs.getString(1), rs.getLong(2), getInstant(rs, 3), rs.getLong(4)));
            }
        } finally {
            if (isolation >= 0) {
                c.setTransactionIsolation(isolation);
            }
        }
    }

    List<LockInfo> list(Connection c, String table, String namespace, String prefix) throws SQLException {
        int isolation = -1;
        if (dialect == Dialect.H2) {
            isolation = c.getTransactionIsolation();
            c.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED);
        }
        List<LockInfo> out = new ArrayList<>();
        List<Holder> candidates = new ArrayList<>();
        List<String> names = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(listSql)) {
            setName(ps, 1, namespace);
            setName(ps, 2, SqlNames.likePrefix(prefix));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = getName(rs, 1);
                    if (dialect == Dialect.POSTGRESQL) {
                        LockKey k = LockKey.of(table, namespace, name);
                        if (rs.getLong(5) == k.classId() && rs.getLong(6) == k.objId()) {
                            out.add(info(name, rs.getString(2), rs.getLong(3), getInstant(rs, 4), null));
                        }
                    } else {
                        names.add(name);
                        candidates.add(new Holder(rs.getString(2), rs.getLong(3), getInstant(rs, 4), rs.getLong(5)));
                    }
                }
            }
        } finally {
            if (isolation >= 0) {
                c.setTransactionIsolation(isolation);
            }
        }
        for (int i = 0; i < names.size(); i++) {
            Holder h = candidates.get(i);
            if (dialect == Dialect.H2) {
                out.add(info(names.get(i), h.owner(), h.token(), h.acquiredAt(), null));
            } else if (holder(c, LockKey.of(table, namespace, names.get(i))).isPresent()) {
                out.add(info(names.get(i), h.owner(), h.token(), h.acquiredAt(), null));
            }
        }
        return out;
    }

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

    /** The database session id of a connection (backend pid, connection id, H2 session id). */
    long sessionId(Connection c) throws SQLException {
        String sql = switch (dialect) {
            case POSTGRESQL -> "SELECT pg_backend_pid()";
            case MARIADB -> "SELECT CONNECTION_ID()";
            default -> "SELECT SESSION_ID()";
        };
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Ends another database session server-side and waits until it is gone (so its locks are free). */
    void kill(Connection c, long session) throws SQLException {
        switch (dialect) {
            case POSTGRESQL -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(CAST(? AS INTEGER))")) {
                    ps.setLong(1, session);
                    ps.executeQuery().close();
                }
                awaitGone(c, "SELECT count(*) FROM pg_stat_activity WHERE pid = CAST(? AS INTEGER)", session);
            }
            case MARIADB -> {
                try (Statement s = c.createStatement()) {
                    s.execute("KILL CONNECTION " + session); // a number: nothing to escape
                } catch (SQLException e) {
                    if (e.getErrorCode() != 1094) { // unknown thread id: already gone
                        throw e;
                    }
                }
                awaitGone(c, "SELECT count(*) FROM information_schema.PROCESSLIST WHERE ID = ?", session);
            }
            default -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT ABORT_SESSION(CAST(? AS INTEGER))")) {
                    ps.setLong(1, session);
                    ps.executeQuery().close();
                }
            }
        }
    }

    private static void awaitGone(Connection c, String sql, long session) throws SQLException {
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

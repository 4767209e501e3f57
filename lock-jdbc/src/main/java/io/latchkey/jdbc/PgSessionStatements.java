package io.latchkey.jdbc;

import io.latchkey.LockInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/*
 * Session mode on PostgreSQL: a session-level advisory lock (see SessionStatements). The try form and the
 * waiting form are two statements with their own parameter order: the try form tests pg_try_advisory_lock in
 * its WHERE clause (the key is bound last), the waiting form takes pg_advisory_lock in a CTE (bound first).
 * Stateless apart from SQL text; safe to share between threads.
 */
final class PgSessionStatements extends SessionStatements {
    private static final String LOCK_OF =
            "k.locktype = 'advisory' AND k.granted AND k.objsubid = 1 AND k.classid::bigint = ? AND k.objid::bigint = ?";

    private final String trySql;
    private final String waitSql;
    private final String stillHeldSql;
    private final String holderSql;
    private final String listSql;
    private final String tokens;

    PgSessionStatements(String table) {
        super(table, Dialect.POSTGRESQL);
        tokens = "nextval('" + table + "_rw_tokens')";
        String upsert = " ON CONFLICT (ns, name) DO UPDATE SET owner = EXCLUDED.owner, token = l.token + 1,"
                + " acquired_at = EXCLUDED.acquired_at, holder_session = EXCLUDED.holder_session, released_by = NULL"
                + " RETURNING token";
        String insert = "INSERT INTO " + table + " AS l (ns, name, owner, token, acquired_at, holder_session)"
                + " SELECT CAST(? AS VARCHAR(64)), CAST(? AS TEXT), CAST(? AS TEXT), 1, now(), pg_backend_pid()";
        trySql = insert + " WHERE pg_try_advisory_lock(?)" + upsert;
        waitSql = "WITH w AS (SELECT pg_advisory_lock(?)) " + insert + " FROM w" + upsert;
        stillHeldSql = "SELECT count(*) FROM pg_locks k WHERE " + LOCK_OF + " AND k.pid = pg_backend_pid()";
        holderSql = "SELECT t.owner, t.token, t.acquired_at, t.holder_session FROM " + table
                + " t WHERE t.ns = ? AND t.name = ?" + " AND EXISTS (SELECT 1 FROM pg_locks k WHERE " + LOCK_OF
                + " AND k.pid = t.holder_session)";
        listSql = "SELECT t.name, t.owner, t.token, t.acquired_at, k.classid::bigint, k.objid::bigint FROM " + table
                + " t"
                + " JOIN pg_locks k ON k.locktype = 'advisory' AND k.granted AND k.objsubid = 1 AND k.pid = t.holder_session"
                + " WHERE t.ns = ? AND t.name LIKE ? ESCAPE '!' ORDER BY t.name";
    }

    @Override
    long tryLock(Connection c, LockKey k, String owner) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(trySql)) {
            ps.setString(1, k.namespace());
            ps.setString(2, k.name());
            ps.setString(3, owner);
            ps.setLong(4, k.advisoryKey());
            return token(ps);
        }
    }

    @Override
    long waitLock(
            Connection c,
            LockKey k,
            String owner,
            long waitMillis,
            AtomicReference<Statement> running,
            AtomicBoolean cancelled)
            throws SQLException {
        // the server queues the waiter; the caller bounds the wait by cancelling the statement
        try (PreparedStatement ps = c.prepareStatement(waitSql)) {
            running.set(ps);
            ps.setLong(1, k.advisoryKey());
            ps.setString(2, k.namespace());
            ps.setString(3, k.name());
            ps.setString(4, owner);
            return token(ps);
        } finally {
            running.set(null);
        }
    }

    private static long token(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : -1;
        }
    }

    @Override
    boolean stillHeld(Connection c, LockKey k, String owner) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(stillHeldSql)) {
            ps.setLong(1, k.classId());
            ps.setLong(2, k.objId());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        }
    }

    @Override
    boolean unlock(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_unlock(?)")) {
            ps.setLong(1, k.advisoryKey());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    @Override
    Optional<Holder> holder(Connection c, LockKey k) throws SQLException {
        return readHolder(c, holderSql, k, (ps, key) -> {
            ps.setLong(3, key.classId());
            ps.setLong(4, key.objId());
        });
    }

    /** One statement: the rows joined with the advisory locks their holder sessions hold, kept when the key is theirs. */
    @Override
    List<LockInfo> list(Connection c, String table, String namespace, String prefix) throws SQLException {
        List<LockInfo> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(listSql)) {
            setName(ps, 1, namespace);
            setName(ps, 2, SqlNames.likePrefix(prefix));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = getName(rs, 1);
                    LockKey k = LockKey.of(table, namespace, name);
                    if (rs.getLong(5) == k.classId() && rs.getLong(6) == k.objId()) {
                        out.add(info(name, rs.getString(2), rs.getLong(3), getInstant(rs, 4), null));
                    }
                }
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ read-write locks (SessionReadWrite)

    /** One attempt at the shared (read) or exclusive (write) advisory lock; a token from the sequence if taken. */
    long tryReadWrite(Connection c, LockKey k, boolean write) throws SQLException {
        String lock = write ? "pg_try_advisory_lock(?)" : "pg_try_advisory_lock_shared(?)";
        try (PreparedStatement ps =
                c.prepareStatement("SELECT CASE WHEN " + lock + " THEN " + tokens + " ELSE -1 END")) {
            ps.setLong(1, k.advisoryKey());
            return token(ps);
        }
    }

    /** Waits in the server's queue for the shared or exclusive advisory lock (cancelled by the caller). */
    long waitReadWrite(Connection c, LockKey k, boolean write, AtomicReference<Statement> running) throws SQLException {
        String lock = write ? "pg_advisory_lock(?)" : "pg_advisory_lock_shared(?)";
        try (PreparedStatement ps =
                c.prepareStatement("WITH l AS MATERIALIZED (SELECT " + lock + ") SELECT " + tokens + " FROM l")) {
            running.set(ps);
            ps.setLong(1, k.advisoryKey());
            return token(ps);
        } finally {
            running.set(null);
        }
    }

    /** Lets go of one shared hold of the key; false if this session held none. */
    boolean unlockShared(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_unlock_shared(?)")) {
            ps.setLong(1, k.advisoryKey());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /**
     * Turns this session's exclusive hold into a shared one in one statement: the shared lock first (granted at
     * once: the session's own exclusive lock does not conflict with it, and PostgreSQL puts a holder's request ahead
     * of the waiters it blocks), then the exclusive one goes. A token if the exclusive lock was held, else -1 (and the
     * shared hold is given back).
     */
    long downgrade(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("WITH s AS MATERIALIZED (SELECT pg_advisory_lock_shared(?)),"
                + " x AS MATERIALIZED (SELECT pg_advisory_unlock(?) AS held FROM s)"
                + " SELECT CASE WHEN held THEN " + tokens + " ELSE -1 END FROM x")) {
            ps.setLong(1, k.advisoryKey());
            ps.setLong(2, k.advisoryKey());
            long token = token(ps);
            if (token < 0) {
                unlockShared(c, k);
            }
            return token;
        }
    }

    @Override
    long sessionId(Connection c) throws SQLException {
        return sessionId(c, "SELECT pg_backend_pid()");
    }

    @Override
    void kill(Connection c, long session) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(CAST(? AS INTEGER))")) {
            ps.setLong(1, session);
            ps.executeQuery().close();
        }
        awaitGone(c, "SELECT count(*) FROM pg_stat_activity WHERE pid = CAST(? AS INTEGER)", session);
    }
}

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
 * Session mode on MariaDB and MySQL: a user lock, GET_LOCK(name, timeout) / RELEASE_LOCK(name) (see
 * SessionStatements). The try form and the waiting form are one statement that differs only in GET_LOCK's
 * timeout (0, or the wait in whole seconds rounded up; the caller cancels it at its deadline). The token comes
 * back through LAST_INSERT_ID(expr) in the OK packet. Stateless apart from SQL text; safe to share.
 */
final class MariaDbSessionStatements extends SessionStatements {
    private final String lockSql;
    private final String holderSql;
    private final String listSql;

    MariaDbSessionStatements(String table) {
        super(table, Dialect.MARIADB);
        lockSql = "INSERT INTO " + table + " (ns, name, owner, token, acquired_at, holder_session, released_by)"
                + " SELECT ?, ?, ?, LAST_INSERT_ID(1), UTC_TIMESTAMP(6), CONNECTION_ID(), NULL FROM DUAL WHERE GET_LOCK(?, ?) = 1"
                + " ON DUPLICATE KEY UPDATE token = LAST_INSERT_ID(token + 1), owner = VALUES(owner),"
                + " acquired_at = VALUES(acquired_at), holder_session = VALUES(holder_session), released_by = NULL";
        holderSql = "SELECT owner, token, acquired_at, holder_session FROM " + table
                + " WHERE ns = ? AND name = ? AND holder_session = IS_USED_LOCK(?)";
        listSql = "SELECT name, owner, token, acquired_at, holder_session FROM " + table
                + " WHERE ns = ? AND name LIKE ? ESCAPE '!' AND owner IS NOT NULL ORDER BY name";
    }

    @Override
    long tryLock(Connection c, LockKey k, String owner) throws SQLException {
        return lock(c, k, owner, 0, null);
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
        return lock(c, k, owner, waitMillis, running);
    }

    private long lock(Connection c, LockKey k, String owner, long waitMillis, AtomicReference<Statement> running)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lockSql, Statement.RETURN_GENERATED_KEYS)) {
            if (running != null) {
                running.set(ps);
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

    @Override
    boolean stillHeld(Connection c, LockKey k, String owner) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT IS_USED_LOCK(?) = CONNECTION_ID()")) {
            ps.setString(1, k.userLockName());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        }
    }

    @Override
    boolean unlock(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT RELEASE_LOCK(?)")) {
            ps.setString(1, k.userLockName());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) == 1;
            }
        }
    }

    @Override
    Optional<Holder> holder(Connection c, LockKey k) throws SQLException {
        return readHolder(c, holderSql, k, (ps, key) -> ps.setString(3, key.userLockName()));
    }

    /** The rows with an owner, each kept only while its user lock is held by the session the row names. */
    @Override
    List<LockInfo> list(Connection c, String table, String namespace, String prefix) throws SQLException {
        List<LockInfo> out = new ArrayList<>();
        for (Candidate row : candidates(c, listSql, namespace, prefix)) {
            if (holder(c, LockKey.of(table, namespace, row.name())).isPresent()) {
                Holder h = row.holder();
                out.add(info(row.name(), h.owner(), h.token(), h.acquiredAt(), null));
            }
        }
        return out;
    }

    @Override
    long sessionId(Connection c) throws SQLException {
        return sessionId(c, "SELECT CONNECTION_ID()");
    }

    @Override
    void kill(Connection c, long session) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("KILL CONNECTION " + session); // a number: nothing to escape
        } catch (SQLException e) {
            if (e.getErrorCode() != 1094) { // unknown thread id: already gone
                throw e;
            }
        }
        awaitGone(c, "SELECT count(*) FROM information_schema.PROCESSLIST WHERE ID = ?", session);
    }
}

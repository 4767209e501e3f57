package io.latchkey.jmh.jdbc;

import io.latchkey.jdbc.Dialect;
import io.latchkey.jdbc.JdbcMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The raw-SQL baseline: the very statements Latchkey's JDBC backend sends for one acquire and one release
 * (the texts are copied here on purpose, so the baseline does not go through any Latchkey class), executed
 * with plain JDBC on the same pool. No core: no owner ids, no handles, no watchdog, no local queue.
 * Stateless apart from SQL text; safe to share between benchmark threads.
 */
final class RawSql {
    private final Dialect dialect;
    private final JdbcMode mode;
    private final String acquire;
    private final String release;
    private final String waitingAcquire;
    private final String table;

    RawSql(Dialect dialect, JdbcMode mode, String table) {
        this.dialect = dialect;
        this.mode = mode;
        this.table = table;
        if (mode == JdbcMode.LEASE) {
            switch (dialect) {
                case POSTGRESQL -> {
                    acquire = "WITH up AS (INSERT INTO " + table
                            + " AS l (ns, name, owner, token, acquired_at, expires_at)"
                            + " VALUES (?, ?, ?, 1, now(), now() + ? * interval '1 microsecond')"
                            + " ON CONFLICT (ns, name) DO UPDATE SET"
                            + " token = CASE WHEN l.owner = EXCLUDED.owner AND l.expires_at > now() THEN l.token ELSE l.token + 1 END,"
                            + " acquired_at = CASE WHEN l.owner = EXCLUDED.owner AND l.expires_at > now() THEN l.acquired_at ELSE now() END,"
                            + " owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at, released_by = NULL"
                            + " WHERE l.expires_at IS NULL OR l.expires_at <= now() OR l.owner = EXCLUDED.owner RETURNING token)"
                            + " SELECT true, token, NULL, NULL FROM up UNION ALL SELECT false, token, owner,"
                            + " CAST(EXTRACT(EPOCH FROM (expires_at - now())) * 1000000 AS BIGINT) FROM " + table
                            + " WHERE ns = ? AND name = ? AND NOT EXISTS (SELECT 1 FROM up)";
                    waitingAcquire = null;
                    release = "WITH r AS (UPDATE " + table
                            + " SET owner = NULL, expires_at = NULL WHERE ns = ? AND name = ?"
                            + " AND owner = ? AND token = ? AND expires_at > now() RETURNING ns, name)"
                            + " SELECT count(*) FROM r, LATERAL (SELECT pg_notify(?, r.ns || '/' || r.name)) n";
                }
                case MARIADB -> {
                    String free = "(expires_at IS NULL OR expires_at <= UTC_TIMESTAMP(6))";
                    acquire = "INSERT INTO " + table + " (ns, name, owner, token, acquired_at, expires_at, released_by)"
                            + " VALUES (?, ?, ?, LAST_INSERT_ID(1), UTC_TIMESTAMP(6), UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, NULL)"
                            + " ON DUPLICATE KEY UPDATE"
                            + " token = IF(" + free
                            + ", LAST_INSERT_ID(token + 1), IF(owner = VALUES(owner), LAST_INSERT_ID(token), token + LAST_INSERT_ID(0))),"
                            + " acquired_at = IF(" + free + ", VALUES(acquired_at), acquired_at),"
                            + " released_by = IF(" + free + ", NULL, released_by),"
                            + " owner = IF(" + free + ", VALUES(owner), owner),"
                            + " expires_at = IF(" + free + " OR owner = VALUES(owner), VALUES(expires_at), expires_at)";
                    waitingAcquire = null;
                    release = "UPDATE " + table
                            + " SET owner = NULL, expires_at = NULL WHERE ns = ? AND name = ? AND owner = ?"
                            + " AND token = ? AND expires_at > UTC_TIMESTAMP(6)";
                }
                default -> {
                    acquire = "SELECT token FROM FINAL TABLE (MERGE INTO " + table
                            + " l USING (VALUES (CAST(? AS VARCHAR(64)),"
                            + " CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(255)), CAST(? AS BIGINT))) v(ns, name, owner, micros)"
                            + " ON l.ns = v.ns AND l.name = v.name"
                            + " WHEN MATCHED AND (l.expires_at IS NULL OR l.expires_at <= CURRENT_TIMESTAMP OR l.owner = v.owner) THEN UPDATE SET"
                            + " token = CASE WHEN l.owner = v.owner AND l.expires_at > CURRENT_TIMESTAMP THEN l.token ELSE l.token + 1 END,"
                            + " acquired_at = CASE WHEN l.owner = v.owner AND l.expires_at > CURRENT_TIMESTAMP THEN l.acquired_at ELSE CURRENT_TIMESTAMP END,"
                            + " owner = v.owner, expires_at = DATEADD(MICROSECOND, v.micros, CURRENT_TIMESTAMP), released_by = NULL"
                            + " WHEN NOT MATCHED THEN INSERT (ns, name, owner, token, acquired_at, expires_at)"
                            + " VALUES (v.ns, v.name, v.owner, 1, CURRENT_TIMESTAMP, DATEADD(MICROSECOND, v.micros, CURRENT_TIMESTAMP)))";
                    waitingAcquire = null;
                    release = "UPDATE " + table
                            + " SET owner = NULL, expires_at = NULL WHERE ns = ? AND name = ? AND owner = ?"
                            + " AND token = ? AND expires_at > CURRENT_TIMESTAMP";
                }
            }
        } else {
            switch (dialect) {
                case POSTGRESQL -> {
                    acquire = "INSERT INTO " + table + " AS l (ns, name, owner, token, acquired_at, holder_session)"
                            + " SELECT CAST(? AS VARCHAR(64)), CAST(? AS TEXT), CAST(? AS TEXT), 1, now(), pg_backend_pid()"
                            + " WHERE pg_try_advisory_lock(?) ON CONFLICT (ns, name) DO UPDATE SET owner = EXCLUDED.owner,"
                            + " token = l.token + 1, acquired_at = EXCLUDED.acquired_at, holder_session = EXCLUDED.holder_session,"
                            + " released_by = NULL RETURNING token";
                    release = "SELECT pg_advisory_unlock(?)";
                    waitingAcquire = "WITH w AS (SELECT pg_advisory_lock(?)) INSERT INTO " + table
                            + " AS l (ns, name, owner, token,"
                            + " acquired_at, holder_session) SELECT CAST(? AS VARCHAR(64)), CAST(? AS TEXT), CAST(? AS TEXT), 1, now(),"
                            + " pg_backend_pid() FROM w ON CONFLICT (ns, name) DO UPDATE SET owner = EXCLUDED.owner,"
                            + " token = l.token + 1, acquired_at = EXCLUDED.acquired_at, holder_session = EXCLUDED.holder_session,"
                            + " released_by = NULL RETURNING token";
                }
                case MARIADB -> {
                    acquire = "INSERT INTO " + table
                            + " (ns, name, owner, token, acquired_at, holder_session, released_by)"
                            + " SELECT ?, ?, ?, LAST_INSERT_ID(1), UTC_TIMESTAMP(6), CONNECTION_ID(), NULL FROM DUAL WHERE GET_LOCK(?, 0) = 1"
                            + " ON DUPLICATE KEY UPDATE token = LAST_INSERT_ID(token + 1), owner = VALUES(owner),"
                            + " acquired_at = VALUES(acquired_at), holder_session = VALUES(holder_session), released_by = NULL";
                    release = "SELECT RELEASE_LOCK(?)";
                    waitingAcquire = acquire.replace("GET_LOCK(?, 0)", "GET_LOCK(?, 60)");
                }
                default -> {
                    acquire = "SELECT token FROM FINAL TABLE (UPDATE " + table
                            + " SET owner = ?, token = NEXT VALUE FOR " + table
                            + "_token_seq, acquired_at = CURRENT_TIMESTAMP, holder_session = SESSION_ID(), released_by = NULL"
                            + " WHERE ns = ? AND name = ?)";
                    release = null; // ROLLBACK
                    waitingAcquire = acquire; // with a lock timeout
                }
            }
        }
    }

    /** One acquire + release of a free lock; returns the token (so the work cannot be optimised away). */
    long cycle(Connection c, String name, String owner) throws SQLException {
        return mode == JdbcMode.LEASE ? leaseCycle(c, name, owner) : sessionCycle(c, name, owner);
    }

    private long leaseCycle(Connection c, String name, String owner) throws SQLException {
        long token = tryLease(c, name, owner);
        releaseLease(c, name, owner, token);
        return token;
    }

    /** Lease mode's acquire statement: the token, or -1 when another owner holds the lock. */
    long tryLease(Connection c, String name, String owner) throws SQLException {
        if (dialect == Dialect.MARIADB) {
            try (PreparedStatement ps = c.prepareStatement(acquire, Statement.RETURN_GENERATED_KEYS)) {
                ps.setBytes(1, new byte[0]);
                ps.setBytes(2, name.getBytes(StandardCharsets.UTF_8));
                ps.setString(3, owner);
                ps.setLong(4, 30_000_000L);
                ps.executeUpdate();
                try (ResultSet k = ps.getGeneratedKeys()) {
                    long token = k.next() ? k.getLong(1) : 0;
                    return token > 0 ? token : -1;
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement(acquire)) {
            ps.setString(1, "");
            ps.setString(2, name);
            ps.setString(3, owner);
            ps.setLong(4, 30_000_000L);
            if (dialect == Dialect.POSTGRESQL) {
                ps.setString(5, "");
                ps.setString(6, name);
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return -1;
                }
                if (dialect == Dialect.POSTGRESQL) {
                    return rs.getBoolean(1) ? rs.getLong(2) : -1;
                }
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            if (dialect == Dialect.H2
                    && (e.getErrorCode() == 50200
                            || e.getErrorCode() == 90131
                            || (e.getSQLState() != null && e.getSQLState().startsWith("23")))) {
                return -1; // a concurrent MERGE on the same row won (Latchkey treats it the same way)
            }
            throw e;
        }
    }

    /** Lease mode's release statement. */
    void releaseLease(Connection c, String name, String owner, long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(release)) {
            if (dialect == Dialect.MARIADB) {
                ps.setBytes(1, new byte[0]);
                ps.setBytes(2, name.getBytes(StandardCharsets.UTF_8));
            } else {
                ps.setString(1, "");
                ps.setString(2, name);
            }
            ps.setString(3, owner);
            ps.setLong(4, token);
            if (dialect == Dialect.POSTGRESQL) {
                ps.setString(5, "latchkey:" + table);
                ps.executeQuery().close();
            } else {
                ps.executeUpdate();
            }
        }
    }

    /**
     * Session mode, waiting in the database as Latchkey does: PostgreSQL's pg_advisory_lock in the acquire
     * statement, MariaDB's GET_LOCK with a timeout, H2's row lock with a lock timeout; then the release.
     */
    long sessionHandoff(Connection c, String name, String owner) throws SQLException {
        long token = session(c, name, owner, true);
        if (token < 0) {
            throw new IllegalStateException("raw waiting acquire of " + name + " did not get the lock");
        }
        return token;
    }

    private long sessionCycle(Connection c, String name, String owner) throws SQLException {
        return session(c, name, owner, false);
    }

    /** Session mode's acquire (trying, or waiting in the database) and release; the token, or -1 if not taken. */
    private long session(Connection c, String name, String owner, boolean wait) throws SQLException {
        long token;
        switch (dialect) {
            case POSTGRESQL -> {
                long key = key(name);
                try (PreparedStatement ps = c.prepareStatement(wait ? waitingAcquire : acquire)) {
                    int i = 1;
                    if (wait) {
                        ps.setLong(i++, key); // the waiting form takes the lock in a CTE before the INSERT
                    }
                    ps.setString(i++, "");
                    ps.setString(i++, name);
                    ps.setString(i++, owner);
                    if (!wait) {
                        ps.setLong(i, key);
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        token = rs.next() ? rs.getLong(1) : -1;
                    }
                }
                try (PreparedStatement ps = c.prepareStatement(release)) {
                    ps.setLong(1, key);
                    ps.executeQuery().close();
                }
            }
            case MARIADB -> {
                String lockName = "raw_" + Long.toHexString(key(name));
                try (PreparedStatement ps =
                        c.prepareStatement(wait ? waitingAcquire : acquire, Statement.RETURN_GENERATED_KEYS)) {
                    ps.setBytes(1, new byte[0]);
                    ps.setBytes(2, name.getBytes(StandardCharsets.UTF_8));
                    ps.setString(3, owner);
                    ps.setString(4, lockName);
                    ps.executeUpdate();
                    try (ResultSet k = ps.getGeneratedKeys()) {
                        token = k.next() ? k.getLong(1) : -1;
                    }
                }
                try (PreparedStatement ps = c.prepareStatement(release)) {
                    ps.setString(1, lockName);
                    ps.executeQuery().close();
                }
            }
            default -> {
                if (wait) {
                    try (Statement st = c.createStatement()) {
                        st.execute("SET LOCK_TIMEOUT 60000");
                    }
                }
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement(acquire)) {
                    ps.setString(1, owner);
                    ps.setString(2, "");
                    ps.setString(3, name);
                    try (ResultSet rs = ps.executeQuery()) {
                        token = rs.next() ? rs.getLong(1) : -1;
                    }
                } finally {
                    c.rollback();
                    c.setAutoCommit(true);
                }
            }
        }
        return token;
    }

    private static long key(String name) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(("raw\0" + name).getBytes(StandardCharsets.UTF_8));
            long k = 0;
            for (int i = 0; i < 8; i++) {
                k = (k << 8) | (d[i] & 0xff);
            }
            return k;
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

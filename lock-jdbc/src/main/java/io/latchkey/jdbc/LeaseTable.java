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

/*
 * The statements of lease mode, one per operation, every one judged by the database's clock:
 * - acquire: one conditional upsert that grants only an absent, released or expired row (or re-grants the
 *   same owner's live row, for retried requests) and bumps the row's fencing counter. PostgreSQL:
 *   INSERT ... ON CONFLICT DO UPDATE ... WHERE, whose CTE also reports the holder when busy; MariaDB/MySQL:
 *   INSERT ... ON DUPLICATE KEY UPDATE with the token handed back through LAST_INSERT_ID(expr) in the OK
 *   packet (0 = busy); H2: MERGE ... USING inside FINAL TABLE.
 * - renew / release: one UPDATE each, conditional on owner, token and the row still being live.
 * - release keeps the row and its counter, so tokens never go back.
 * Stateless apart from SQL text; safe to share between threads.
 */
final class LeaseTable extends SqlTable {
    /** What an acquire statement found. */
    record Outcome(boolean granted, long token, String holder, long holderToken, long remainingMicros) {
        static final Outcome BUSY_UNKNOWN = new Outcome(false, -1, null, -1, -1);
    }

    private final String acquireSql;
    private final String renewSql;
    private final String releaseSql;
    private final String forceSql;
    private final String inspectSql;
    private final String listSql;
    private final String notifyChannel;

    LeaseTable(String table, Dialect dialect, String notifyChannel) {
        super(table, dialect);
        this.notifyChannel = notifyChannel;
        String now;
        String plusLease;
        switch (dialect) {
            case POSTGRESQL -> {
                now = "now()";
                plusLease = "now() + ? * interval '1 microsecond'";
                acquireSql = "WITH up AS (INSERT INTO " + table + " AS l (ns, name, owner, token, acquired_at, expires_at)"
                        + " VALUES (?, ?, ?, 1, now(), " + plusLease + ")"
                        + " ON CONFLICT (ns, name) DO UPDATE SET"
                        + " token = CASE WHEN l.owner = EXCLUDED.owner AND l.expires_at > now() THEN l.token ELSE l.token + 1 END,"
                        + " acquired_at = CASE WHEN l.owner = EXCLUDED.owner AND l.expires_at > now() THEN l.acquired_at ELSE now() END,"
                        + " owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at, released_by = NULL"
                        + " WHERE l.expires_at IS NULL OR l.expires_at <= now() OR l.owner = EXCLUDED.owner"
                        + " RETURNING token)"
                        + " SELECT true, token, NULL, NULL FROM up"
                        + " UNION ALL SELECT false, token, owner, CAST(EXTRACT(EPOCH FROM (expires_at - now())) * 1000000 AS BIGINT)"
                        + " FROM " + table + " WHERE ns = ? AND name = ? AND NOT EXISTS (SELECT 1 FROM up)";
            }
            case MARIADB -> {
                now = "UTC_TIMESTAMP(6)";
                plusLease = "UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND";
                String free = "(expires_at IS NULL OR expires_at <= UTC_TIMESTAMP(6))";
                // assignments run left to right and later ones see earlier results: "free" is tested while
                // expires_at still holds the old value; owner is assigned just before expires_at.
                acquireSql = "INSERT INTO " + table + " (ns, name, owner, token, acquired_at, expires_at, released_by)"
                        + " VALUES (?, ?, ?, LAST_INSERT_ID(1), UTC_TIMESTAMP(6), " + plusLease + ", NULL)"
                        + " ON DUPLICATE KEY UPDATE"
                        + " token = IF(" + free + ", LAST_INSERT_ID(token + 1), IF(owner = VALUES(owner), LAST_INSERT_ID(token), token + LAST_INSERT_ID(0))),"
                        + " acquired_at = IF(" + free + ", VALUES(acquired_at), acquired_at),"
                        + " released_by = IF(" + free + ", NULL, released_by),"
                        + " owner = IF(" + free + ", VALUES(owner), owner),"
                        + " expires_at = IF(" + free + " OR owner = VALUES(owner), VALUES(expires_at), expires_at)";
            }
            case H2 -> {
                now = "CURRENT_TIMESTAMP";
                plusLease = "DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)";
                acquireSql = "SELECT token FROM FINAL TABLE (MERGE INTO " + table + " l USING (VALUES (CAST(? AS VARCHAR(64)),"
                        + " CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(255)), CAST(? AS BIGINT))) v(ns, name, owner, micros)"
                        + " ON l.ns = v.ns AND l.name = v.name"
                        + " WHEN MATCHED AND (l.expires_at IS NULL OR l.expires_at <= CURRENT_TIMESTAMP OR l.owner = v.owner) THEN UPDATE SET"
                        + " token = CASE WHEN l.owner = v.owner AND l.expires_at > CURRENT_TIMESTAMP THEN l.token ELSE l.token + 1 END,"
                        + " acquired_at = CASE WHEN l.owner = v.owner AND l.expires_at > CURRENT_TIMESTAMP THEN l.acquired_at ELSE CURRENT_TIMESTAMP END,"
                        + " owner = v.owner, expires_at = DATEADD(MICROSECOND, v.micros, CURRENT_TIMESTAMP), released_by = NULL"
                        + " WHEN NOT MATCHED THEN INSERT (ns, name, owner, token, acquired_at, expires_at)"
                        + " VALUES (v.ns, v.name, v.owner, 1, CURRENT_TIMESTAMP, DATEADD(MICROSECOND, v.micros, CURRENT_TIMESTAMP)))";
            }
            default -> throw new IllegalStateException("unknown dialect " + dialect);
        }
        String mine = " WHERE ns = ? AND name = ? AND owner = ? AND token = ? AND expires_at > " + now;
        renewSql = "UPDATE " + table + " SET expires_at = " + plusLease + mine;
        String clear = "UPDATE " + table + " SET owner = NULL, expires_at = NULL" + mine;
        String force = "UPDATE " + table + " SET released_by = owner, owner = NULL, expires_at = NULL"
                + " WHERE ns = ? AND name = ? AND expires_at > " + now;
        if (dialect == Dialect.POSTGRESQL) {
            // wake waiters in every client: one NOTIFY per released row, sent when the release commits
            String notify = " RETURNING ns, name) SELECT count(*) FROM r, LATERAL (SELECT pg_notify(?, r.ns || '/' || r.name)) n";
            releaseSql = "WITH r AS (" + clear + notify;
            forceSql = "WITH r AS (" + force + notify;
        } else {
            releaseSql = clear;
            forceSql = force;
        }
        inspectSql = "SELECT owner, token, acquired_at, expires_at FROM " + table + " WHERE ns = ? AND name = ? AND expires_at > " + now;
        listSql = "SELECT name, owner, token, acquired_at, expires_at FROM " + table
                + " WHERE ns = ? AND name LIKE ? ESCAPE '!' AND expires_at > " + now + " ORDER BY name";
    }

    Outcome acquire(Connection c, LockKey k, String owner, long leaseMicros) throws SQLException {
        switch (dialect) {
            case POSTGRESQL -> {
                try (PreparedStatement ps = c.prepareStatement(acquireSql)) {
                    ps.setString(1, k.namespace());
                    ps.setString(2, k.name());
                    ps.setString(3, owner);
                    ps.setLong(4, leaseMicros);
                    ps.setString(5, k.namespace());
                    ps.setString(6, k.name());
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            return Outcome.BUSY_UNKNOWN;
                        }
                        if (rs.getBoolean(1)) {
                            return new Outcome(true, rs.getLong(2), null, -1, -1);
                        }
                        return new Outcome(false, -1, rs.getString(3), rs.getLong(2), rs.getLong(4));
                    }
                }
            }
            case MARIADB -> {
                try (PreparedStatement ps = c.prepareStatement(acquireSql, Statement.RETURN_GENERATED_KEYS)) {
                    setName(ps, 1, k.namespace());
                    setName(ps, 2, k.name());
                    ps.setString(3, owner);
                    ps.setLong(4, leaseMicros);
                    ps.executeUpdate();
                    try (ResultSet keys = ps.getGeneratedKeys()) {
                        long token = keys.next() ? keys.getLong(1) : 0;
                        return token > 0 ? new Outcome(true, token, null, -1, -1) : Outcome.BUSY_UNKNOWN;
                    }
                }
            }
            default -> {
                try (PreparedStatement ps = c.prepareStatement(acquireSql)) {
                    ps.setString(1, k.namespace());
                    ps.setString(2, k.name());
                    ps.setString(3, owner);
                    ps.setLong(4, leaseMicros);
                    try (ResultSet rs = ps.executeQuery()) {
                        return rs.next() ? new Outcome(true, rs.getLong(1), null, -1, -1) : Outcome.BUSY_UNKNOWN;
                    }
                }
            }
        }
    }

    boolean renew(Connection c, LockKey k, String owner, long token, long leaseMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(renewSql)) {
            ps.setLong(1, leaseMicros);
            bindMine(ps, 2, k, owner, token);
            return ps.executeUpdate() > 0;
        }
    }

    boolean release(Connection c, LockKey k, String owner, long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(releaseSql)) {
            int next = bindMine(ps, 1, k, owner, token);
            return runCounting(ps, next) > 0;
        }
    }

    boolean forceRelease(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(forceSql)) {
            setName(ps, 1, k.namespace());
            setName(ps, 2, k.name());
            return runCounting(ps, 3) > 0;
        }
    }

    private long runCounting(PreparedStatement ps, int next) throws SQLException {
        if (dialect != Dialect.POSTGRESQL) {
            return ps.executeUpdate();
        }
        ps.setString(next, notifyChannel);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private int bindMine(PreparedStatement ps, int at, LockKey k, String owner, long token) throws SQLException {
        setName(ps, at, k.namespace());
        setName(ps, at + 1, k.name());
        ps.setString(at + 2, owner);
        ps.setLong(at + 3, token);
        return at + 4;
    }

    Optional<LockInfo> inspect(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(inspectSql)) {
            setName(ps, 1, k.namespace());
            setName(ps, 2, k.name());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(info(k.name(), rs.getString(1), rs.getLong(2), getInstant(rs, 3), getInstant(rs, 4)));
            }
        }
    }

    List<LockInfo> list(Connection c, String namespace, String prefix) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(listSql)) {
            setName(ps, 1, namespace);
            setName(ps, 2, SqlNames.likePrefix(prefix));
            List<LockInfo> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(info(getName(rs, 1), rs.getString(2), rs.getLong(3), getInstant(rs, 4), getInstant(rs, 5)));
                }
            }
            return out;
        }
    }
}

package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/*
 * The statements of lease-mode read-write locks, in the table <lock table>_rw: one row per reader (side 'r'),
 * writer ('w') or waiting writer's intent ('i'), plus one header row per lock (owner '', side 'h') that holds the
 * token counter and is the lock's mutex: an acquisition locks it (SELECT ... FOR UPDATE) in a transaction, so
 * acquirers of one lock take turns and each sees the rows committed before it. Releases, renewals and withdrawals
 * touch only their own row. Expiry is judged by the database's clock. Stateless apart from SQL text.
 */
final class ReadWriteStatements extends SqlTable {
    /** Live readers and writers, other writers' live intents, this owner's live grant on the asked side, expired rows. */
    record State(int readers, int writers, int intents, long mineToken, int expired) {}

    private final String rwTable;
    private final String createHeaderSql;
    private final String lockHeaderSql;
    private final String stateSql;
    private final String dropExpiredSql;
    private final String extendMineSql;
    private final String dropIntentSql;
    private final String addRowSql;
    private final String bumpTokenSql;
    private final String renewSql;
    private final String releaseSql;

    ReadWriteStatements(String table, Dialect dialect) {
        super(table, dialect);
        this.rwTable = table + "_rw";
        String now = now(dialect);
        String plusLease = nowPlusMicros(dialect);
        String live = "expires_at > " + now;
        String rows = " WHERE ns = ? AND name = ? AND owner <> ''";
        String insertHeader = "INTO " + rwTable + " (ns, name, owner, side, token) VALUES (?, ?, '', 'h', 0)";
        createHeaderSql = switch (dialect) {
            case POSTGRESQL -> "INSERT " + insertHeader + " ON CONFLICT DO NOTHING";
            case MARIADB -> "INSERT IGNORE " + insertHeader;
            case H2 ->
                "MERGE INTO " + rwTable + " p USING (VALUES (CAST(? AS VARCHAR(64)),"
                        + " CAST(? AS VARCHAR(255)))) v(ns, name) ON p.ns = v.ns AND p.name = v.name AND p.owner = ''"
                        + " WHEN NOT MATCHED THEN INSERT (ns, name, owner, side, token) VALUES (v.ns, v.name, '', 'h', 0)";
        };
        lockHeaderSql = "SELECT token FROM " + rwTable + " WHERE ns = ? AND name = ? AND owner = '' FOR UPDATE";
        stateSql = "SELECT COALESCE(SUM(CASE WHEN side = 'r' AND " + live + " THEN 1 ELSE 0 END), 0),"
                + " COALESCE(SUM(CASE WHEN side = 'w' AND " + live + " THEN 1 ELSE 0 END), 0),"
                + " COALESCE(SUM(CASE WHEN side = 'i' AND " + live + " AND owner <> ? THEN 1 ELSE 0 END), 0),"
                + " COALESCE(MAX(CASE WHEN owner = ? AND side = ? AND " + live + " THEN token END), -1),"
                + " COALESCE(SUM(CASE WHEN " + live + " THEN 0 ELSE 1 END), 0) FROM " + rwTable + rows
                // InnoDB's REPEATABLE READ would read an older snapshot; a locking read sees the latest rows
                + (dialect == Dialect.MARIADB ? " FOR UPDATE" : "");
        dropExpiredSql = "DELETE FROM " + rwTable + rows + " AND NOT (" + live + ")";
        extendMineSql =
                "UPDATE " + rwTable + " SET expires_at = " + plusLease + " WHERE ns = ? AND name = ? AND owner = ?";
        dropIntentSql = "DELETE FROM " + rwTable + " WHERE ns = ? AND name = ? AND owner = ? AND side = 'i'";
        addRowSql = "INSERT INTO " + rwTable + " (ns, name, owner, side, token, expires_at) VALUES (?, ?, ?, ?, ?, "
                + plusLease + ")";
        bumpTokenSql = "UPDATE " + rwTable + " SET token = ? WHERE ns = ? AND name = ? AND owner = ''";
        String mine = " WHERE ns = ? AND name = ? AND owner = ? AND owner <> '' AND token = ? AND side IN ('r', 'w')"
                + " AND " + live;
        renewSql = "UPDATE " + rwTable + " SET expires_at = " + plusLease + mine;
        releaseSql = "DELETE FROM " + rwTable + mine;
    }

    /** CREATE TABLE IF NOT EXISTS for the read-write table of lock table {@code table}. */
    static String readWriteTableDdl(Dialect dialect, String table) {
        return switch (dialect) {
            case POSTGRESQL ->
                "CREATE TABLE IF NOT EXISTS " + table + "_rw (\n"
                        + "  ns          VARCHAR(64) NOT NULL,\n"
                        + "  name        TEXT NOT NULL,\n"
                        + "  owner       TEXT NOT NULL,\n"
                        + "  side        CHAR(1) NOT NULL,\n"
                        + "  token       BIGINT NOT NULL,\n"
                        + "  expires_at  TIMESTAMPTZ,\n"
                        + "  PRIMARY KEY (ns, name, owner))";
            case MARIADB ->
                "CREATE TABLE IF NOT EXISTS " + table + "_rw (\n"
                        + "  ns          VARBINARY(64) NOT NULL,\n"
                        + "  name        VARBINARY(255) NOT NULL,\n"
                        + "  owner       VARBINARY(255) NOT NULL,\n"
                        + "  side        CHAR(1) NOT NULL,\n"
                        + "  token       BIGINT NOT NULL,\n"
                        + "  expires_at  DATETIME(6),\n"
                        + "  PRIMARY KEY (ns, name, owner)) ENGINE=InnoDB";
            case H2 ->
                "CREATE TABLE IF NOT EXISTS " + table + "_rw (\n"
                        + "  ns          VARCHAR(64) NOT NULL,\n"
                        + "  name        VARCHAR(255) NOT NULL,\n"
                        + "  owner       VARCHAR(255) NOT NULL,\n"
                        + "  side        CHAR(1) NOT NULL,\n"
                        + "  token       BIGINT NOT NULL,\n"
                        + "  expires_at  TIMESTAMP(6) WITH TIME ZONE,\n"
                        + "  PRIMARY KEY (ns, name, owner))";
        };
    }

    void createHeader(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(createHeaderSql)) {
            bindKey(ps, 1, k);
            ps.executeUpdate();
        } catch (SQLException e) {
            String state = e.getSQLState();
            if (state == null || !state.startsWith("23")) {
                throw e; // a duplicate key only means that a concurrent first acquisition created it
            }
        }
    }

    /** Locks the header row until the transaction ends; its token, or -1 if the lock has none yet. */
    long lockHeader(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lockHeaderSql)) {
            bindKey(ps, 1, k);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    State state(Connection c, LockKey k, String owner, char side) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(stateSql)) {
            setName(ps, 1, owner);
            setName(ps, 2, owner);
            ps.setString(3, String.valueOf(side));
            bindKey(ps, 4, k);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new State(rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getLong(4), rs.getInt(5));
            }
        }
    }

    void dropExpired(Connection c, LockKey k) throws SQLException {
        run(dropExpiredSql, c, k, null);
    }

    void extendMine(Connection c, LockKey k, String owner, long leaseMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(extendMineSql)) {
            ps.setLong(1, leaseMicros);
            bindKey(ps, 2, k);
            setName(ps, 4, owner);
            ps.executeUpdate();
        }
    }

    /** Removes this owner's intent; true if there was one. */
    boolean dropIntent(Connection c, LockKey k, String owner) throws SQLException {
        return run(dropIntentSql, c, k, owner) > 0;
    }

    /** Adds a reader, writer or intent row (the header row is locked by this transaction). */
    void addRow(Connection c, LockKey k, String owner, char side, long token, long leaseMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(addRowSql)) {
            bindKey(ps, 1, k);
            setName(ps, 3, owner);
            ps.setString(4, String.valueOf(side));
            ps.setLong(5, token);
            ps.setLong(6, leaseMicros);
            ps.executeUpdate();
        }
    }

    void bumpToken(Connection c, LockKey k, long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(bumpTokenSql)) {
            ps.setLong(1, token);
            bindKey(ps, 2, k);
            ps.executeUpdate();
        }
    }

    boolean renew(Connection c, LockKey k, String owner, long token, long leaseMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(renewSql)) {
            ps.setLong(1, leaseMicros);
            bindKey(ps, 2, k);
            setName(ps, 4, owner);
            ps.setLong(5, token);
            return ps.executeUpdate() > 0;
        }
    }

    boolean release(Connection c, LockKey k, String owner, long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(releaseSql)) {
            bindKey(ps, 1, k);
            setName(ps, 3, owner);
            ps.setLong(4, token);
            return ps.executeUpdate() > 0;
        }
    }

    private int run(String sql, Connection c, LockKey k, String owner) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bindKey(ps, 1, k);
            if (owner != null) {
                setName(ps, 3, owner);
            }
            return ps.executeUpdate();
        }
    }

    private void bindKey(PreparedStatement ps, int at, LockKey k) throws SQLException {
        setName(ps, at, k.namespace());
        setName(ps, at + 1, k.name());
    }
}

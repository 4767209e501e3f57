package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/*
 * The statements of lease-mode semaphores, in the table <lock table>_permits, one row per holder plus one header
 * row per semaphore (owner '', which no owner id can be) that holds the permit count (permits) and the token
 * counter (token). The header row is the semaphore's mutex: an acquisition locks it (SELECT ... FOR UPDATE) in a
 * transaction, so acquirers of one semaphore take turns and each counts the holders committed before it (see
 * LeaseSemaphores on isolation); releases and renewals touch only their own row. Every expiry is judged by the database's clock.
 * Stateless apart from SQL text; safe to share between threads.
 */
final class SemaphoreStatements extends SqlTable {
    /** The owner of a semaphore's header row; owner ids are never empty. */
    static final String HEADER = "";

    /** What the header row holds: the permit count and the last token. */
    record Header(int limit, long token) {}

    /**
     * The live holders' permits, this owner's token if it already holds (a retried request) else -1, and how many
     * expired holder rows are left to clean up.
     */
    record Usage(int used, long mineToken, int expired) {}

    private final String permitsTable;
    private final String createHeaderSql;
    private final String lockHeaderSql;
    private final String dropExpiredSql;
    private final String usageSql;
    private final String extendMineSql;
    private final String bumpTokenSql;
    private final String addHolderSql;
    private final String renewSql;
    private final String releaseSql;
    private final String availableSql;

    SemaphoreStatements(String table, Dialect dialect) {
        super(table, dialect);
        this.permitsTable = table + "_permits";
        String now = now(dialect);
        String plusLease = nowPlusMicros(dialect);
        String header = " WHERE ns = ? AND name = ? AND owner = ''";
        String holders = " WHERE ns = ? AND name = ? AND owner <> ''";
        String insertHeader = "INTO " + permitsTable + " (ns, name, owner, permits, token) VALUES (?, ?, '', ?, 0)";
        createHeaderSql = switch (dialect) {
            case POSTGRESQL -> "INSERT " + insertHeader + " ON CONFLICT DO NOTHING";
            case MARIADB -> "INSERT IGNORE " + insertHeader;
            case H2 ->
                "MERGE INTO " + permitsTable + " p USING (VALUES (CAST(? AS VARCHAR(64)),"
                        + " CAST(? AS VARCHAR(255)), CAST(? AS INTEGER))) v(ns, name, permits)"
                        + " ON p.ns = v.ns AND p.name = v.name AND p.owner = ''"
                        + " WHEN NOT MATCHED THEN INSERT (ns, name, owner, permits, token) VALUES (v.ns, v.name, '', v.permits, 0)";
        };
        lockHeaderSql = "SELECT permits, token FROM " + permitsTable + header + " FOR UPDATE";
        dropExpiredSql = "DELETE FROM " + permitsTable + holders + " AND expires_at <= " + now;
        String live = "expires_at > " + now;
        usageSql = "SELECT COALESCE(SUM(CASE WHEN " + live + " THEN permits ELSE 0 END), 0),"
                + " COALESCE(MAX(CASE WHEN owner = ? AND " + live + " THEN token END), -1),"
                + " COALESCE(SUM(CASE WHEN " + live + " THEN 0 ELSE 1 END), 0) FROM " + permitsTable + holders
                // InnoDB's REPEATABLE READ would read an older snapshot; a locking read sees the latest rows
                + (dialect == Dialect.MARIADB ? " FOR UPDATE" : "");
        extendMineSql = "UPDATE " + permitsTable + " SET expires_at = " + plusLease
                + " WHERE ns = ? AND name = ? AND owner = ?";
        bumpTokenSql = "UPDATE " + permitsTable + " SET token = ?" + header;
        addHolderSql = "INSERT INTO " + permitsTable + " (ns, name, owner, permits, token, expires_at) VALUES (?, ?, ?,"
                + " ?, ?, " + plusLease + ")";
        String mine = " WHERE ns = ? AND name = ? AND owner = ? AND owner <> '' AND token = ? AND expires_at > " + now;
        renewSql = "UPDATE " + permitsTable + " SET expires_at = " + plusLease + mine;
        releaseSql = "DELETE FROM " + permitsTable + mine;
        availableSql = "SELECT h.permits, (SELECT COALESCE(SUM(p.permits), 0) FROM " + permitsTable
                + " p WHERE p.ns = h.ns AND p.name = h.name AND p.owner <> '' AND p.expires_at > " + now + ") FROM "
                + permitsTable + " h WHERE h.ns = ? AND h.name = ? AND h.owner = ''";
    }

    /** CREATE TABLE IF NOT EXISTS for the permits table of lock table {@code table}. */
    static String permitsTableDdl(Dialect dialect, String table) {
        return switch (dialect) {
            case POSTGRESQL ->
                "CREATE TABLE IF NOT EXISTS " + table + "_permits (\n"
                        + "  ns          VARCHAR(64) NOT NULL,\n"
                        + "  name        TEXT NOT NULL,\n"
                        + "  owner       TEXT NOT NULL,\n"
                        + "  permits     INTEGER NOT NULL,\n"
                        + "  token       BIGINT NOT NULL,\n"
                        + "  expires_at  TIMESTAMPTZ,\n"
                        + "  PRIMARY KEY (ns, name, owner))";
            case MARIADB ->
                "CREATE TABLE IF NOT EXISTS " + table + "_permits (\n"
                        + "  ns          VARBINARY(64) NOT NULL,\n"
                        + "  name        VARBINARY(255) NOT NULL,\n"
                        + "  owner       VARBINARY(255) NOT NULL,\n"
                        + "  permits     INTEGER NOT NULL,\n"
                        + "  token       BIGINT NOT NULL,\n"
                        + "  expires_at  DATETIME(6),\n"
                        + "  PRIMARY KEY (ns, name, owner)) ENGINE=InnoDB";
            case H2 ->
                "CREATE TABLE IF NOT EXISTS " + table + "_permits (\n"
                        + "  ns          VARCHAR(64) NOT NULL,\n"
                        + "  name        VARCHAR(255) NOT NULL,\n"
                        + "  owner       VARCHAR(255) NOT NULL,\n"
                        + "  permits     INTEGER NOT NULL,\n"
                        + "  token       BIGINT NOT NULL,\n"
                        + "  expires_at  TIMESTAMP(6) WITH TIME ZONE,\n"
                        + "  PRIMARY KEY (ns, name, owner))";
        };
    }

    /** Creates the header row with this permit count unless it exists (autocommit; a race is harmless). */
    void createHeader(Connection c, LockKey k, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(createHeaderSql)) {
            setName(ps, 1, k.namespace());
            setName(ps, 2, k.name());
            ps.setInt(3, limit);
            ps.executeUpdate();
        } catch (SQLException e) {
            String state = e.getSQLState();
            if (state == null || !state.startsWith("23")) {
                throw e; // a duplicate key only means that a concurrent first acquisition created it
            }
        }
    }

    /** Locks the header row until the transaction ends; null if the semaphore has none yet. */
    Header lockHeader(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lockHeaderSql)) {
            bindKey(ps, 1, k);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Header(rs.getInt(1), rs.getLong(2)) : null;
            }
        }
    }

    void dropExpired(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(dropExpiredSql)) {
            bindKey(ps, 1, k);
            ps.executeUpdate();
        }
    }

    Usage usage(Connection c, LockKey k, String owner) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(usageSql)) {
            setOwner(ps, 1, owner);
            bindKey(ps, 2, k);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Usage(rs.getInt(1), rs.getLong(2), rs.getInt(3));
            }
        }
    }

    void extendMine(Connection c, LockKey k, String owner, long leaseMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(extendMineSql)) {
            ps.setLong(1, leaseMicros);
            bindKey(ps, 2, k);
            setOwner(ps, 4, owner);
            ps.executeUpdate();
        }
    }

    /** Records a new holder under the next token (the header row is locked by this transaction). */
    void addHolder(Connection c, LockKey k, String owner, int permits, long token, long leaseMicros)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(bumpTokenSql)) {
            ps.setLong(1, token);
            bindKey(ps, 2, k);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(addHolderSql)) {
            bindKey(ps, 1, k);
            setOwner(ps, 3, owner);
            ps.setInt(4, permits);
            ps.setLong(5, token);
            ps.setLong(6, leaseMicros);
            ps.executeUpdate();
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
            bindMine(ps, 1, k, owner, token);
            return ps.executeUpdate() > 0;
        }
    }

    /** {permit count, permits in use} from the store, or null if the semaphore has never been used. */
    int[] available(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(availableSql)) {
            bindKey(ps, 1, k);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new int[] {rs.getInt(1), rs.getInt(2)} : null;
            }
        }
    }

    private void bindKey(PreparedStatement ps, int at, LockKey k) throws SQLException {
        setName(ps, at, k.namespace());
        setName(ps, at + 1, k.name());
    }

    private void bindMine(PreparedStatement ps, int at, LockKey k, String owner, long token) throws SQLException {
        bindKey(ps, at, k);
        setOwner(ps, at + 2, owner);
        ps.setLong(at + 3, token);
    }

    /** Owner ids are bound as names are: bytes on MariaDB/MySQL, so that no collation can merge two. */
    private void setOwner(PreparedStatement ps, int at, String owner) throws SQLException {
        setName(ps, at, owner);
    }
}

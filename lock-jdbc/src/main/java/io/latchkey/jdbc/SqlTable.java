package io.latchkey.jdbc;

import io.latchkey.LockInfo;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

/*
 * What every dialect's statements share: the table name, how a lock name is bound and read (text, or UTF-8
 * bytes on MySQL/MariaDB so that no collation can merge two names), how a timestamp is read, and the DDL.
 * Stateless apart from the immutable table name; safe to share between threads.
 */
abstract class SqlTable {
    final String table;
    final Dialect dialect;

    SqlTable(String table, Dialect dialect) {
        this.table = table;
        this.dialect = dialect;
    }

    /** Binds a lock name or namespace. */
    void setName(PreparedStatement ps, int index, String name) throws SQLException {
        if (dialect == Dialect.MARIADB) {
            ps.setBytes(index, name.getBytes(StandardCharsets.UTF_8));
        } else {
            ps.setString(index, name);
        }
    }

    String getName(ResultSet rs, int index) throws SQLException {
        if (dialect == Dialect.MARIADB) {
            byte[] b = rs.getBytes(index);
            return b == null ? null : new String(b, StandardCharsets.UTF_8);
        }
        return rs.getString(index);
    }

    Instant getInstant(ResultSet rs, int index) throws SQLException {
        if (dialect == Dialect.MARIADB) {
            LocalDateTime t = rs.getObject(index, LocalDateTime.class); // stored as UTC
            return t == null ? null : t.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime t = rs.getObject(index, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    LockInfo info(String name, String owner, long token, Instant acquiredAt, Instant expiresAt) {
        return new LockInfo(name, owner, token, Optional.ofNullable(acquiredAt), Optional.ofNullable(expiresAt));
    }

    /** The database's current time, as this dialect writes it (UTC on MariaDB/MySQL, whose DATETIME has no zone). */
    static String now(Dialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> "now()";
            case MARIADB -> "UTC_TIMESTAMP(6)";
            case H2 -> "CURRENT_TIMESTAMP";
        };
    }

    /** The database's current time plus a bound number of microseconds (one {@code ?} parameter). */
    static String nowPlusMicros(Dialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> "now() + ? * interval '1 microsecond'";
            case MARIADB -> "UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND";
            case H2 -> "DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)";
        };
    }

    /** CREATE TABLE IF NOT EXISTS (and, where needed, the token sequence) for this dialect. */
    List<String> ddl() {
        return ddl(dialect, table);
    }

    static List<String> ddl(Dialect dialect, String table) {
        switch (dialect) {
            case POSTGRESQL:
                return List.of(
                        "CREATE TABLE IF NOT EXISTS " + table + " (\n"
                                + "  ns             VARCHAR(64) NOT NULL,\n"
                                + "  name           TEXT NOT NULL,\n"
                                + "  owner          TEXT,\n"
                                + "  token          BIGINT NOT NULL,\n"
                                + "  acquired_at    TIMESTAMPTZ,\n"
                                + "  expires_at     TIMESTAMPTZ,\n"
                                + "  holder_session BIGINT,\n"
                                + "  released_by    TEXT,\n"
                                + "  waiting        INTEGER[],\n"
                                + "  PRIMARY KEY (ns, name))",
                        SemaphoreStatements.permitsTableDdl(dialect, table),
                        ReadWriteStatements.readWriteTableDdl(dialect, table),
                        // the tokens of session-mode read-write locks (shared advisory locks carry none)
                        "CREATE SEQUENCE IF NOT EXISTS " + table + "_rw_tokens");
            case MARIADB:
                return List.of(
                        "CREATE TABLE IF NOT EXISTS " + table + " (\n"
                                + "  ns             VARBINARY(64) NOT NULL,\n"
                                + "  name           VARBINARY(255) NOT NULL,\n"
                                + "  owner          VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,\n"
                                + "  token          BIGINT NOT NULL,\n"
                                + "  acquired_at    DATETIME(6),\n"
                                + "  expires_at     DATETIME(6),\n"
                                + "  holder_session BIGINT,\n"
                                + "  released_by    VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,\n"
                                + "  PRIMARY KEY (ns, name)) ENGINE=InnoDB",
                        SemaphoreStatements.permitsTableDdl(dialect, table),
                        ReadWriteStatements.readWriteTableDdl(dialect, table));
            case H2:
                return List.of(
                        "CREATE TABLE IF NOT EXISTS " + table + " (\n"
                                + "  ns             VARCHAR(64) NOT NULL,\n"
                                + "  name           VARCHAR(255) NOT NULL,\n"
                                + "  owner          VARCHAR(255),\n"
                                + "  token          BIGINT NOT NULL,\n"
                                + "  acquired_at    TIMESTAMP(6) WITH TIME ZONE,\n"
                                + "  expires_at     TIMESTAMP(6) WITH TIME ZONE,\n"
                                + "  holder_session BIGINT,\n"
                                + "  released_by    VARCHAR(255),\n"
                                + "  PRIMARY KEY (ns, name))",
                        "CREATE SEQUENCE IF NOT EXISTS " + table + "_token_seq",
                        SemaphoreStatements.permitsTableDdl(dialect, table),
                        ReadWriteStatements.readWriteTableDdl(dialect, table));
            default:
                throw new IllegalStateException("unknown dialect " + dialect);
        }
    }

    /**
     * The objects {@link #ddl} creates, in the same order: the lock table, its {@code _permits} and {@code _rw}
     * tables, and the token sequence (PostgreSQL {@code _rw_tokens}, H2 {@code _token_seq}; MariaDB has none).
     */
    static List<String> ddlObjects(Dialect dialect, String table) {
        return switch (dialect) {
            case POSTGRESQL -> List.of(table, table + "_permits", table + "_rw", table + "_rw_tokens");
            case MARIADB -> List.of(table, table + "_permits", table + "_rw");
            case H2 -> List.of(table, table + "_token_seq", table + "_permits", table + "_rw");
        };
    }

    /**
     * Creates what is missing, and only that: on PostgreSQL and MariaDB each object is looked up first and its
     * {@code CREATE ... IF NOT EXISTS} runs only if it is not there, so a role with rights on existing tables
     * only (no CREATE on the schema or database) starts with the default {@code createTable=true}. Both
     * servers check the right to create before they look whether the object exists, so running the DDL
     * unconditionally would fail for such a role. H2 (embedded, one user) runs the DDL as it is.
     */
    void createTable(Connection c) throws SQLException {
        List<String> ddl = ddl();
        List<String> objects = ddlObjects(dialect, table);
        try (Statement s = c.createStatement()) {
            for (int i = 0; i < ddl.size(); i++) {
                if (dialect == Dialect.H2 || missing(c, objects.get(i), i == 0)) {
                    s.execute(ddl.get(i));
                }
            }
        }
        if (dialect == Dialect.POSTGRESQL) {
            addWaitingColumn(c);
        }
    }

    /**
     * Whether {@code object} is missing. PostgreSQL: {@code to_regclass}, which needs no right on the object.
     * MariaDB/MySQL: a {@code SELECT ... LIMIT 0}; "no such table" (1146) is missing; "command denied" (1142,
     * which the server also answers for a table that does not exist when the user has no right on it) is
     * thrown for the lock table, which every operation reads (so a role without SELECT on it fails at start,
     * naming the privilege), and taken as "not ours to create" for the semaphore and read-write tables, which
     * only those primitives use.
     */
    private boolean missing(Connection c, String object, boolean lockTable) throws SQLException {
        if (dialect == Dialect.POSTGRESQL) {
            try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NULL")) {
                ps.setString(1, object);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && rs.getBoolean(1);
                }
            }
        }
        try (Statement s = c.createStatement()) {
            s.executeQuery("SELECT 1 FROM " + object + " LIMIT 0").close();
            return false;
        } catch (SQLException e) {
            if (e.getErrorCode() == 1146) { // ER_NO_SUCH_TABLE
                return true;
            }
            if (e.getErrorCode() == 1142 && !lockTable) { // ER_TABLEACCESS_DENIED_ERROR
                return false;
            }
            throw e;
        }
    }

    /**
     * A PostgreSQL table created before lease mode queued its waiters lacks the {@code waiting} column: add it.
     * Checked first, because ALTER TABLE takes an exclusive lock even when there is nothing to do.
     */
    private void addWaitingColumn(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeQuery("SELECT waiting FROM " + table + " WHERE false").close();
        } catch (SQLException e) {
            if (!"42703".equals(e.getSQLState())) { // undefined_column
                throw e;
            }
            try (Statement s = c.createStatement()) {
                s.execute("ALTER TABLE " + table + " ADD COLUMN IF NOT EXISTS waiting INTEGER[]");
            }
        }
    }
}

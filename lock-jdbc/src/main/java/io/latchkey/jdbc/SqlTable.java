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

    void createTable(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String sql : ddl()) {
                s.execute(sql);
            }
        }
        if (dialect == Dialect.POSTGRESQL) {
            addWaitingColumn(c);
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

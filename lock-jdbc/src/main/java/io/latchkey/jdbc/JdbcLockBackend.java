package io.latchkey.jdbc;

import io.latchkey.Capability;
import io.latchkey.spi.LockBackend;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDBC lock backend: PostgreSQL, MariaDB/MySQL and H2, in {@link JdbcMode#LEASE lease} or
 * {@link JdbcMode#SESSION session} mode.
 *
 * <p>From a URI (a HikariCP pool is built and closed with the client):
 * <pre>{@code
 * LockClient locks = Latchkey.connect("jdbc:postgresql://db:5432/app", Map.of("user", "app", "password", pw));
 * }</pre>
 * From a {@link DataSource} the application already has (never closed by Latchkey):
 * <pre>{@code
 * LockClient locks = Latchkey.client(JdbcLockBackend.builder(dataSource).table("app_locks").build());
 * }</pre>
 *
 * <p>Concurrency design: a backend is shared by all threads of a client. It keeps no per-lock state in
 * lease mode (every operation borrows a pooled connection for one statement); in session mode each held
 * lock owns one pinned connection guarded by its own lock (see {@code SessionHold}). Subclasses are the two
 * modes; this class holds what they share (pool, table, namespace, description) and the schema bootstrap.
 */
public abstract sealed class JdbcLockBackend implements LockBackend permits LeaseBackend, SessionBackend {
    private static final Logger log = LoggerFactory.getLogger(JdbcLockBackend.class);

    final JdbcConnections connections;
    final Dialect dialect;
    final String table;
    final String namespace;
    private final AutoCloseable ownedPool;

    JdbcLockBackend(Builder b, Dialect dialect) {
        this.dialect = dialect;
        this.table = b.table;
        this.namespace = b.namespace;
        this.connections = new JdbcConnections(
                b.dataSource,
                b.description != null
                        ? b.description
                        : dialect.displayName() + " DataSource ("
                                + b.mode.name().toLowerCase(java.util.Locale.ROOT) + ", table " + b.table + ")",
                b.secret,
                b.mode == JdbcMode.SESSION,
                dialect == Dialect.POSTGRESQL,
                b.table);
        this.ownedPool = b.ownedPool;
    }

    /**
     * A builder for a backend on a {@link DataSource} the application owns (Latchkey never closes it).
     *
     * @param dataSource the application's pool
     * @return a new builder
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * The DDL that creates this backend's table (and sequence), for operators who create it by hand.
     *
     * @param dialect the database's dialect
     * @param table the table's name, optionally schema-qualified
     * @return the statements, in order
     */
    public static List<String> ddl(Dialect dialect, String table) {
        Objects.requireNonNull(dialect, "dialect");
        return SqlTable.ddl(dialect, SqlNames.checkTable(table));
    }

    /**
     * The mode of this backend.
     *
     * @return lease or session mode
     */
    public abstract JdbcMode mode();

    @Override
    public String description() {
        return connections.description;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + description() + "]";
    }

    LockKey key(String name) {
        return LockKey.of(table, namespace, name);
    }

    static long micros(Duration d) {
        return TimeUnit.NANOSECONDS.toMicros(d.toNanos());
    }

    /**
     * validUntil for a grant whose request started at {@code startNanos}: the database set the expiry to its
     * own clock at execution plus the lease, which is no earlier than the request's start plus the lease.
     */
    static long validUntil(long startNanos, Duration lease) {
        return startNanos + lease.toNanos();
    }

    void createTable() {
        Connection c = null;
        try {
            c = connections.borrow();
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            new LeaseStatements(table, dialect).createTable(c);
        } catch (SQLException e) {
            throw connections.unavailable("check or create the lock table " + table, null, e);
        } finally {
            connections.giveBack(c);
        }
    }

    @Override
    public void close() {
        if (ownedPool != null) {
            try {
                ownedPool.close();
            } catch (Exception e) {
                log.warn("closing the connection pool of {} failed", description(), e);
            }
        }
    }

    static Set<Capability> capabilities(Dialect dialect, JdbcMode mode) {
        if (mode == JdbcMode.SESSION) {
            return dialect == Dialect.POSTGRESQL // shared advisory locks are native read locks
                    ? Set.of(
                            Capability.SESSION_BOUND, Capability.NATIVE_WAIT, Capability.LISTING, Capability.READ_WRITE)
                    : Set.of(Capability.SESSION_BOUND, Capability.NATIVE_WAIT, Capability.LISTING);
        }
        if (dialect == Dialect.POSTGRESQL) {
            return Set.of(
                    Capability.SERVER_CLOCK,
                    Capability.NATIVE_WAIT,
                    Capability.LISTING,
                    Capability.SURVIVES_SERVER_RESTART,
                    Capability.SEMAPHORE,
                    Capability.READ_WRITE);
        }
        if (dialect == Dialect.MARIADB) {
            return Set.of(
                    Capability.SERVER_CLOCK,
                    Capability.LISTING,
                    Capability.SURVIVES_SERVER_RESTART,
                    Capability.SEMAPHORE,
                    Capability.READ_WRITE);
        }
        return Set.of(Capability.SERVER_CLOCK, Capability.LISTING, Capability.SEMAPHORE, Capability.READ_WRITE);
    }

    /**
     * Builds a {@link JdbcLockBackend}. Every setter checks its argument and throws
     * {@link IllegalArgumentException} saying what is allowed.
     */
    public static final class Builder {
        private final DataSource dataSource;
        private String table = "latchkey_locks";
        private boolean tableSet;
        private JdbcMode mode = JdbcMode.LEASE;
        private String namespace = "";
        private boolean createTable = true;
        private Dialect dialect;
        String description;
        String secret;
        AutoCloseable ownedPool;

        private Builder(DataSource dataSource) {
            if (dataSource == null) {
                throw new IllegalArgumentException("dataSource must not be null");
            }
            this.dataSource = dataSource;
        }

        /**
         * The lock table: an SQL identifier, optionally schema-qualified ({@code locks}, {@code app.locks}).
         * Default {@code latchkey_locks} in lease mode and {@code latchkey_session_locks} in session mode
         * (a table serves one mode).
         *
         * @param table an SQL identifier, optionally schema-qualified
         * @return this builder
         */
        public Builder table(String table) {
            this.table = SqlNames.checkTable(table);
            this.tableSet = true;
            return this;
        }

        /**
         * Lease (default) or session mode.
         *
         * @param mode {@code LEASE} or {@code SESSION}
         * @return this builder
         */
        public Builder mode(JdbcMode mode) {
            if (mode == null) {
                throw new IllegalArgumentException("mode must be LEASE or SESSION, was null");
            }
            this.mode = mode;
            return this;
        }

        /**
         * Separates the locks of several applications sharing one table; 0–64 of {@code [A-Za-z0-9_.:-]}.
         *
         * @param namespace the application's namespace, may be empty
         * @return this builder
         */
        public Builder namespace(String namespace) {
            this.namespace = SqlNames.checkNamespace(namespace);
            return this;
        }

        /**
         * Whether to run {@code CREATE TABLE IF NOT EXISTS} when the backend is built (default true).
         *
         * @param createTable whether to create the table
         * @return this builder
         */
        public Builder createTable(boolean createTable) {
            this.createTable = createTable;
            return this;
        }

        /**
         * The dialect; by default detected from the database's product name.
         *
         * @param dialect the database's dialect
         * @return this builder
         */
        public Builder dialect(Dialect dialect) {
            if (dialect == null) {
                throw new IllegalArgumentException("dialect must be POSTGRESQL, MARIADB or H2, was null");
            }
            this.dialect = dialect;
            return this;
        }

        /**
         * Builds the backend; creates the table first if {@link #createTable(boolean)} is on.
         *
         * @return the backend
         */
        public JdbcLockBackend build() {
            if (!tableSet && mode == JdbcMode.SESSION) {
                table = "latchkey_session_locks";
            }
            Dialect d = dialect != null ? dialect : detect();
            JdbcLockBackend backend = mode == JdbcMode.LEASE ? new LeaseBackend(this, d) : new SessionBackend(this, d);
            if (createTable) {
                try {
                    backend.createTable();
                } catch (RuntimeException e) {
                    backend.close();
                    throw e;
                }
            }
            return backend;
        }

        private Dialect detect() {
            try (Connection c = dataSource.getConnection()) {
                return Dialect.fromProductName(c.getMetaData().getDatabaseProductName());
            } catch (SQLException e) {
                throw new JdbcConnections(dataSource, description != null ? description : "JDBC DataSource", secret)
                        .unavailable("detect the database dialect for", null, e);
            }
        }
    }
}

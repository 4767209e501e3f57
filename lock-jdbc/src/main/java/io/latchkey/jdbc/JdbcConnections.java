package io.latchkey.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.latchkey.BackendUnavailableException;
import io.latchkey.spi.DaemonThreads;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.StoreErrors;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Where connections come from and how failures are reported: opening the pool of a URL (openPool; the
 * backend closes a pool it owns with the client), borrowing from the DataSource, discarding a
 * connection that may still hold a database lock (evicted from HikariCP, aborted otherwise, never handed
 * back to a pool where another borrower would inherit the lock), and turning SQLExceptions into
 * BackendUnavailableExceptions whose messages name the lock and the backend and never carry the password.
 * Immutable; safe to share.
 */
final class JdbcConnections {
    private static final Logger log = LoggerFactory.getLogger(JdbcConnections.class);
    private static final Executor DIRECT = Runnable::run;
    private static final AtomicInteger POOLS = new AtomicInteger();

    final DataSource dataSource;
    final String description;
    private final String secret;

    private final boolean sessionMode;
    private final boolean dialectIsPostgres;
    /** The lock table (as configured, maybe schema-qualified), for the privilege hint; null when not known. */
    private final String table;

    /**
     * Opens the HikariCP pool of a {@code jdbc:} URL (closed with the client that owns it): the pool's and the
     * driver's timeouts from {@code connectTimeout}, and one first connection that reports a failure as soon as
     * the driver gives up ({@link #probe}). A failure is one line ({@link OpenFailures}), never with the password.
     */
    static HikariDataSource openPool(
            String url, Drivers driver, JdbcSettings settings, Map<String, String> settingsMap, String description) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(driver.url());
        if (driver.driverClass() != null) {
            config.setDriverClassName(driver.driverClass());
        }
        if (settings.user() != null) {
            config.setUsername(settings.user());
        }
        if (settings.password() != null) {
            config.setPassword(settings.password());
        }
        config.setMaximumPoolSize(settings.poolSize());
        config.setMinimumIdle(Math.min(2, settings.poolSize()));
        // how long a borrower waits for a connection (a new one, or a free one when all are in use)
        config.setConnectionTimeout(Math.max(250, settings.connectTimeout().toMillis()));
        config.setInitializationFailTimeout(1); // one attempt at start: its driver timeouts bound it
        config.setPoolName("latchkey-jdbc-" + POOLS.incrementAndGet());
        config.setAutoCommit(true);
        driverTimeouts(config, driver, settings.connectTimeout(), url.toLowerCase(Locale.ROOT));
        long start = System.nanoTime();
        try {
            probe(driver, config, settings.connectTimeout());
            HikariDataSource pool = new HikariDataSource(config);
            log.debug("opened the pool of {} in {} ms", description, (System.nanoTime() - start) / 1_000_000);
            return pool;
        } catch (SQLException | RuntimeException e) {
            throw OpenFailures.of(url, settingsMap, settings.connectTimeout(), description, e);
        }
    }

    /**
     * The connect timeout for the driver: pgjdbc takes whole seconds (connectTimeout for the TCP connect,
     * loginTimeout for the whole login, which a server that accepts and never answers would otherwise stretch
     * to the socket timeout); MariaDB and MySQL Connector/J take milliseconds (connectTimeout; the MariaDB
     * driver also reads the handshake under it). A value the URL sets itself is left to the URL. Pools get a
     * socketTimeout of 30 s unless the URL sets one, so a statement to a frozen server fails instead of hanging.
     */
    private static void driverTimeouts(HikariConfig config, Drivers driver, Duration connectTimeout, String lowerUrl) {
        String seconds = Long.toString(Math.max(1, (connectTimeout.toMillis() + 999) / 1000));
        String millis = Long.toString(Math.max(1, connectTimeout.toMillis()));
        if (Drivers.POSTGRESQL.equals(driver.driverClass())) {
            putUnlessInUrl(config, lowerUrl, "connectTimeout", seconds);
            putUnlessInUrl(config, lowerUrl, "loginTimeout", seconds);
            putUnlessInUrl(config, lowerUrl, "socketTimeout", "30");
        } else if (Drivers.MARIADB.equals(driver.driverClass()) || Drivers.MYSQL.equals(driver.driverClass())) {
            putUnlessInUrl(config, lowerUrl, "connectTimeout", millis);
            putUnlessInUrl(config, lowerUrl, "socketTimeout", "30000");
        }
    }

    /**
     * One connection made directly through the driver before the pool, so that its failure is reported as
     * soon as the driver gives up (HikariCP's own first attempt sleeps a second after a failure before it
     * reports), and never later than the connect timeout: a driver that does not bound its login by its
     * connect timeout (MySQL Connector/J reads the greeting under its socket timeout) is left behind on a
     * daemon thread, which closes the connection should it still come. Embedded H2 has nothing to reach.
     */
    private static void probe(Drivers driver, HikariConfig config, Duration timeout) throws SQLException {
        if (driver.driverClass() == null || Drivers.H2.equals(driver.driverClass())) {
            return;
        }
        Driver d = driver.load();
        Properties props = new Properties();
        props.putAll(config.getDataSourceProperties());
        if (config.getUsername() != null) {
            props.setProperty("user", config.getUsername());
        }
        if (config.getPassword() != null) {
            props.setProperty("password", config.getPassword());
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        DaemonThreads.start("latchkey-jdbc-connect", () -> {
            try (Connection c = d.connect(driver.url(), props)) {
                if (c == null) {
                    throw new SQLException(
                            "driver " + driver.driverClass() + " does not accept " + Redaction.redact(driver.url()),
                            "08001");
                }
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        });
        try {
            // a little grace, so that the driver's own timeout, with its better reason, usually comes first
            done.get(timeout.toMillis() + 200, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new SQLTimeoutException("no answer from the server (the driver was still connecting)", "08001");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while connecting", "08001", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            throw new SQLException(String.valueOf(e.getCause().getMessage()), "08001", e.getCause());
        }
    }

    private static void putUnlessInUrl(HikariConfig config, String lowerUrl, String property, String value) {
        if (!lowerUrl.contains(property.toLowerCase(Locale.ROOT) + "=")) {
            config.addDataSourceProperty(property, value);
        }
    }

    JdbcConnections(DataSource dataSource, String description, String secret) {
        this(dataSource, description, secret, false, false, null);
    }

    JdbcConnections(
            DataSource dataSource,
            String description,
            String secret,
            boolean sessionMode,
            boolean postgres,
            String table) {
        this.dataSource = dataSource;
        this.description = description;
        this.secret = secret == null || secret.isEmpty() ? null : secret;
        this.sessionMode = sessionMode;
        this.dialectIsPostgres = postgres;
        this.table = table;
    }

    Connection borrow() throws SQLException {
        return dataSource.getConnection();
    }

    /** One unit of work on a borrowed connection. */
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * Runs {@code work} on a pooled connection in autocommit and gives the connection back; a database error is the
     * store being unavailable for {@code what} on lock {@code lockName}.
     */
    <T> T inAutocommit(String what, String lockName, Work<T> work) {
        Connection c = null;
        try {
            c = borrow();
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return work.run(c);
        } catch (SQLException e) {
            throw unavailable(what, lockName, e);
        } finally {
            giveBack(c);
        }
    }

    /** Closes a connection that is known to be clean (holds no lock): back to the pool. */
    void giveBack(Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("returning a connection to the pool of {} failed", description, e);
        }
    }

    /** Closes the physical connection, so that the server frees whatever it held. */
    void discard(Connection c) {
        if (c == null) {
            return;
        }
        try {
            if (dataSource instanceof HikariDataSource hikari) {
                hikari.evictConnection(c);
                return;
            }
            c.abort(DIRECT);
        } catch (SQLException | RuntimeException e) {
            log.debug("discarding a connection of {} failed", description, e);
        }
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("closing a discarded connection of {} failed", description, e);
        }
    }

    BackendUnavailableException unavailable(String what, String lockName, SQLException e) {
        String exhausted = exhausted(e);
        String privilege = exhausted == null ? missingPrivilege(e) : null;
        String reason = clean(e.getMessage()) + " (SQLState " + e.getSQLState() + ")";
        String msg = "Could not " + what + (lockName == null ? "" : " lock '" + lockName + "'") + " on " + description
                + ": "
                + (exhausted != null
                        ? exhausted
                        : privilege != null ? StoreErrors.oneLine(reason) + ": " + privilege : reason);
        return new BackendUnavailableException(msg, lockName, description, scrub(e));
    }

    /** MariaDB/MySQL: "UPDATE command denied to user 'app'@'10.0.0.7' for table `db`.`latchkey_locks`". */
    private static final Pattern COMMAND_DENIED = Pattern.compile("(?i)\\b([A-Z ]+?) command denied to user");

    /**
     * What to grant, when {@code e} is a missing privilege (PostgreSQL SQLState 42501; MariaDB/MySQL 1142 a
     * table, 1143 a column, 1095/1227 another user's session); null for any other failure. Names the privilege
     * the role lacks (MariaDB/MySQL say it; on PostgreSQL, which names only the object, it is asked with
     * has_table_privilege on a connection of the pool, never waiting for one to be given back) and everything the object
     * needs, as the README's least-privilege section lists it: the lock table SELECT, INSERT, UPDATE; the
     * {@code _permits} and {@code _rw} tables also DELETE; PostgreSQL's {@code _rw_tokens} sequence USAGE.
     */
    private String missingPrivilege(SQLException e) {
        int code = e.getErrorCode();
        boolean maria = code == 1142 || code == 1143 || code == 1095 || code == 1227;
        if (!"42501".equals(e.getSQLState()) && !maria) {
            return null;
        }
        String text = String.valueOf(e.getMessage());
        String lower = text.toLowerCase(Locale.ROOT);
        String see = " (see lock-jdbc README, least privilege)";
        if (lower.contains("terminate") || code == 1095 || code == 1227) {
            return "ending another client's session (session mode's forceRelease) needs the same database user as"
                    + " that client (PostgreSQL: or membership in pg_signal_backend; MariaDB: or CONNECTION ADMIN)"
                    + see;
        }
        Matcher denied = COMMAND_DENIED.matcher(text);
        String deniedCommand = denied.find() ? denied.group(1).strip().toUpperCase(Locale.ROOT) : null;
        if ("CREATE".equals(deniedCommand) || lower.contains("permission denied for schema")) {
            return "the role may not create the lock tables: have an administrator create them with the DDL in the"
                    + " lock-jdbc README (JdbcLockBackend.ddl), then grant the role its rights on them; on PostgreSQL"
                    + " the role also needs USAGE on the table's schema"
                    + see;
        }
        if (table != null) {
            String base = table.substring(table.indexOf('.') + 1);
            String[][] objects = {
                {base + "_rw_tokens", "sequence", "USAGE"},
                {base + "_permits", "table", "SELECT, INSERT, UPDATE, DELETE"},
                {base + "_rw", "table", "SELECT, INSERT, UPDATE, DELETE"},
                {base, "table", "SELECT, INSERT, UPDATE"}
            };
            for (String[] o : objects) {
                if (Pattern.compile("(?i)(?<![A-Za-z0-9_])" + Pattern.quote(o[0]) + "(?![A-Za-z0-9_])")
                        .matcher(text)
                        .find()) {
                    String qualified = table.contains(".") ? table.substring(0, table.indexOf('.') + 1) + o[0] : o[0];
                    String lacks = deniedCommand != null ? deniedCommand : lacking(qualified, o[1], o[2]);
                    return (lacks != null ? "the role lacks " + lacks + " on " + o[1] + " " + o[0] + "; it needs " : "it needs ")
                            + o[2] + " on it" + see;
                }
            }
        }
        return "the role lacks a privilege Latchkey needs" + see;
    }

    /**
     * PostgreSQL: which of {@code needed} the current role lacks on {@code object}, asked on a connection of the
     * pool when it has one idle or room for a new one (never waiting for one to be given back: the pool may be
     * exhausted); null when that cannot be asked (or for a DataSource other than HikariCP's).
     */
    private String lacking(String object, String kind, String needed) {
        if (!dialectIsPostgres || !(dataSource instanceof HikariDataSource hikari)) {
            return null;
        }
        HikariPoolMXBean pool = hikari.getHikariPoolMXBean();
        if (pool == null
                || pool.getIdleConnections() == 0 && pool.getTotalConnections() >= hikari.getMaximumPoolSize()) {
            return null;
        }
        String check = kind.equals("sequence") ? "has_sequence_privilege" : "has_table_privilege";
        StringBuilder out = new StringBuilder();
        try (Connection c = borrow()) {
            for (String privilege : needed.split(", ")) {
                try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT " + check + "(?, ?)")) {
                    ps.setString(1, object);
                    ps.setString(2, privilege);
                    try (java.sql.ResultSet rs = ps.executeQuery()) {
                        if (rs.next() && !rs.getBoolean(1)) {
                            out.append(out.length() == 0 ? "" : ", ").append(privilege);
                        }
                    }
                }
            }
        } catch (SQLException | RuntimeException ex) {
            log.debug("could not ask which privilege the role lacks on {}", object, ex);
            return null;
        }
        return out.length() == 0 ? null : out.toString();
    }

    /**
     * What to say when a borrow timed out because every connection of a HikariCP pool was in use: how big the
     * pool is and what to raise. Session mode pins a connection per held lock, so this is how a pool that is
     * too small for the locks held at once shows. Null for any other failure.
     */
    private String exhausted(SQLException e) {
        if (!(e instanceof SQLTransientConnectionException) || !(dataSource instanceof HikariDataSource hikari)) {
            return null;
        }
        HikariPoolMXBean pool = hikari.getHikariPoolMXBean();
        int max = hikari.getMaximumPoolSize();
        if (pool == null || pool.getActiveConnections() < max) {
            return null;
        }
        String why = sessionMode
                ? "session mode holds one connection per held lock and one per waiting acquisition"
                : "lease mode borrows one per statement" + (dialectIsPostgres ? ", plus one for LISTEN" : "");
        return "pool size " + max + " exhausted (" + pool.getActiveConnections() + " in use, "
                + pool.getThreadsAwaitingConnection() + " more waiting for one); " + why
                + ": raise the poolSize setting (maximumPoolSize of a DataSource you pass)";
    }

    String clean(String text) {
        if (text == null) {
            return "no message";
        }
        String s = Redaction.redact(text);
        return secret == null ? s : s.replace(secret, "***");
    }

    /** The exception chain with messages cleaned of the password (drivers may quote the URL). */
    SQLException scrub(SQLException e) {
        if (secret == null || !containsSecret(e)) {
            return e;
        }
        SQLException copy = new SQLException(clean(e.getMessage()), e.getSQLState(), e.getErrorCode());
        copy.setStackTrace(e.getStackTrace());
        return copy;
    }

    private boolean containsSecret(Throwable t) {
        for (Throwable x = t; x != null; x = x.getCause() == x ? null : x.getCause()) {
            if (x.getMessage() != null && x.getMessage().contains(secret)) {
                return true;
            }
        }
        return false;
    }
}

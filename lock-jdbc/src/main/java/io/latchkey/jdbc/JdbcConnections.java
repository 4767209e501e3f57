package io.latchkey.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.latchkey.BackendUnavailableException;
import io.latchkey.spi.Redaction;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Where connections come from and how failures are reported: borrowing from the DataSource, discarding a
 * connection that may still hold a database lock (evicted from HikariCP, aborted otherwise, never handed
 * back to a pool where another borrower would inherit the lock), and turning SQLExceptions into
 * BackendUnavailableExceptions whose messages name the lock and the backend and never carry the password.
 * Immutable; safe to share.
 */
final class JdbcConnections {
    private static final Logger log = LoggerFactory.getLogger(JdbcConnections.class);
    private static final Executor DIRECT = Runnable::run;

    final DataSource dataSource;
    final String description;
    private final String secret;

    private final boolean sessionMode;
    private final boolean dialectIsPostgres;

    JdbcConnections(DataSource dataSource, String description, String secret) {
        this(dataSource, description, secret, false, false);
    }

    JdbcConnections(DataSource dataSource, String description, String secret, boolean sessionMode, boolean postgres) {
        this.dataSource = dataSource;
        this.description = description;
        this.secret = secret == null || secret.isEmpty() ? null : secret;
        this.sessionMode = sessionMode;
        this.dialectIsPostgres = postgres;
    }

    Connection borrow() throws SQLException {
        return dataSource.getConnection();
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
        String msg = "Could not " + what + (lockName == null ? "" : " lock '" + lockName + "'") + " on " + description
                + ": " + (exhausted != null ? exhausted : clean(e.getMessage()) + " (SQLState " + e.getSQLState() + ")");
        return new BackendUnavailableException(msg, lockName, description, scrub(e));
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
                : "lease mode borrows one per statement" + (dialectIsPostgres
                        ? ", plus one for LISTEN" : "");
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

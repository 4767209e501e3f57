package io.latchkey.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.BackendUnavailableException;
import io.latchkey.spi.Redaction;
import java.sql.Connection;
import java.sql.SQLException;
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
final class Connections {
    private static final Logger log = LoggerFactory.getLogger(Connections.class);
    private static final Executor DIRECT = Runnable::run;

    final DataSource dataSource;
    final String description;
    private final String secret;

    Connections(DataSource dataSource, String description, String secret) {
        this.dataSource = dataSource;
        this.description = description;
        this.secret = secret == null || secret.isEmpty() ? null : secret;
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
        String msg = "Could not " + what + (lockName == null ? "" : " lock '" + lockName + "'") + " on " + description
                + ": " + clean(e.getMessage()) + " (SQLState " + e.getSQLState() + ")";
        return new BackendUnavailableException(msg, lockName, description, scrub(e));
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

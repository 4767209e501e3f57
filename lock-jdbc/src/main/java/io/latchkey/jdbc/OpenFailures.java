package io.latchkey.jdbc;

import io.latchkey.BackendUnavailableException;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.StoreErrors;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/*
 * Why a pool could not be opened, in the one-line forms every scheme shares (StoreErrors):
 * - the login was refused (SQLState class 28: PostgreSQL 28P01/28000, MariaDB/MySQL 1045, H2 28000):
 *   "authentication failed at jdbc:postgresql://host:5432: <driver's reason>";
 * - the server could not be reached or did not answer in time (SQLState class 08, a connect/timeout/unknown
 *   host exception anywhere in the chain): "cannot reach jdbc:postgresql://host:5432 within 5s: <reason>";
 * - anything else (no such database, a bad URL option): "Could not open a connection pool to <url>: <reason>".
 * The driver's text passes through Redaction.scrub, so a password it quotes (from the URL, say) never shows.
 */
final class OpenFailures {
    private static final Pattern TARGET = Pattern.compile("^(jdbc:[A-Za-z0-9]+:(?:[A-Za-z0-9]+:)?//[^/?;]*)");

    private OpenFailures() {}

    static BackendUnavailableException of(
            String url, Map<String, String> settings, Duration timeout, String description, Exception e) {
        SQLException sql = find(e, SQLException.class);
        Throwable root = root(e);
        String reason = Redaction.scrub(message(sql != null ? sql : root), url, settings);
        String target = target(url);
        // the driver's exception, its text scrubbed, keeps the SQLState and error code for programs
        SQLException cause = sql == null ? null : new SQLException(reason, sql.getSQLState(), sql.getErrorCode());
        BackendUnavailableException out;
        String state = sql == null ? null : sql.getSQLState();
        if (state != null && state.startsWith("28") || sql != null && sql.getErrorCode() == 1045) {
            out = StoreErrors.authenticationFailed(target, reason, null, cause);
        } else if (state != null && state.startsWith("08")
                || sql instanceof SQLTimeoutException
                || find(e, ConnectException.class) != null
                || find(e, SocketTimeoutException.class) != null
                || find(e, UnknownHostException.class) != null
                || find(e, NoRouteToHostException.class) != null) {
            out = StoreErrors.cannotReach(target, timeout, reason, null, cause);
        } else {
            out = new BackendUnavailableException(
                    "Could not open a connection pool to " + description + ": " + StoreErrors.oneLine(reason),
                    null,
                    description,
                    cause);
        }
        return out;
    }

    /** scheme://host:port (every host of a multi-host URL) without database, options or credentials. */
    static String target(String url) {
        String shown = Redaction.redact(url);
        Matcher m = TARGET.matcher(shown);
        if (m.find()) {
            return m.group(1);
        }
        int cut = shown.length();
        for (char c : new char[] {';', '?'}) {
            int i = shown.indexOf(c);
            if (i >= 0) {
                cut = Math.min(cut, i);
            }
        }
        return shown.substring(0, cut);
    }

    private static String message(Throwable t) {
        if (t == null) {
            return "no reason given";
        }
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }

    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (Throwable x = t; x != null; x = x.getCause() == x ? null : x.getCause()) {
            if (type.isInstance(x)) {
                return type.cast(x);
            }
        }
        return null;
    }

    private static Throwable root(Throwable t) {
        Throwable x = t;
        while (x.getCause() != null && x.getCause() != x) {
            x = x.getCause();
        }
        return x;
    }
}

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
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/*
 * Why a pool could not be opened, in the one-line forms every scheme shares (StoreErrors):
 * - the login was refused (SQLState class 28: PostgreSQL 28P01/28000, MariaDB/MySQL 1045, H2 28000):
 *   "authentication failed at jdbc:postgresql://host:5432: <driver's reason>";
 * - the server could not be reached or did not answer in time (SQLState class 08, a connect/timeout/unknown
 *   host exception anywhere in the chain): "cannot reach jdbc:postgresql://host:5432 within 5s: <reason>";
 * - the TLS handshake failed (an SSLException or a certificate exception in the chain, or the driver's own
 *   host name check): the same "cannot reach" line, the reason saying what is wrong first, as the etcd and
 *   Redis schemes do: "cannot reach jdbc:postgresql://host:5432 within 5s: TLS: the server's certificate is not
 *   trusted (no CA this client trusts signed it: URL parameter sslrootcert) [SSL error: PKIX path ...]";
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
        String tls = tlsProblem(e, reason, url);
        if (tls != null) {
            reason = tls + " [" + reason + "]";
        }
        // the driver's exception, its text scrubbed, keeps the SQLState and error code for programs
        SQLException cause = sql == null ? null : new SQLException(reason, sql.getSQLState(), sql.getErrorCode());
        BackendUnavailableException out;
        String state = sql == null ? null : sql.getSQLState();
        if (state != null && state.startsWith("28") || sql != null && sql.getErrorCode() == 1045) {
            out = StoreErrors.authenticationFailed(target, reason, null, cause);
        } else if (tls != null
                || state != null && state.startsWith("08")
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

    /**
     * What is wrong with TLS, in words, or null when the failure is not a TLS one: the server's certificate not
     * trusted (PKIX), out of its validity period, not naming the host, or another handshake failure. The hint
     * names the URL parameter of the driver the scheme uses (pgjdbc sslrootcert; MariaDB Connector/J
     * serverSslCert; MySQL Connector/J its trust store).
     */
    static String tlsProblem(Throwable e, String reason, String url) {
        String problem = StoreErrors.tlsProblem(e);
        // pgjdbc checks the host name itself, after the handshake, with no TLS exception in the chain
        if (problem == null && reason.toLowerCase(Locale.ROOT).contains("hostnameverifier")) {
            problem = "the server's certificate does not name the host";
        }
        if (problem == null) {
            return null;
        }
        if (problem.equals(StoreErrors.UNTRUSTED_CERTIFICATE)) {
            String scheme = url.toLowerCase(Locale.ROOT);
            String where = scheme.startsWith("jdbc:postgresql:")
                    ? "URL parameter sslrootcert"
                    : scheme.startsWith("jdbc:mariadb:") || scheme.contains("permitmysqlscheme")
                            ? "URL parameter serverSslCert"
                            : "URL parameter serverSslCert (MariaDB driver) or trustCertificateKeyStoreUrl"
                                    + " (MySQL Connector/J)";
            return "TLS: " + problem + " (no CA this client trusts signed it: " + where + ")";
        }
        return problem.equals("the server's certificate does not name the host")
                ? "TLS: " + problem + " in the URL"
                : "TLS: " + problem;
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

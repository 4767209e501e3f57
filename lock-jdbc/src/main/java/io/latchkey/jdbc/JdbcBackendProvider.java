package io.latchkey.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.StoreErrors;
import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Serves {@code jdbc:postgresql:}, {@code jdbc:mariadb:}, {@code jdbc:mysql:} and {@code jdbc:h2:} URIs by
 * building a HikariCP pool (closed with the client) and a {@link JdbcLockBackend} on it.
 *
 * <p>Settings: {@code table} (default {@code latchkey_locks}, session mode {@code latchkey_session_locks}),
 * {@code mode} ({@code lease} | {@code session}), {@code poolSize} (1–1000, default 10; session mode pins one
 * connection per held lock), {@code namespace} (default empty), {@code createTable} ({@code true} |
 * {@code false}, default true), {@code user}, {@code password} (or in the URL, as the driver allows),
 * {@code connectTimeout} ({@link StoreErrors#CONNECT_TIMEOUT}: a duration such as {@code 5s}, {@code 250ms} or
 * {@code 1.5s}; default 5 s; passed to the driver and to HikariCP). Unknown keys are rejected. They are read by
 * {@link JdbcSettings}.
 *
 * <p>Errors at start, each one line: a missing driver names the Maven coordinates to add ({@code no JDBC
 * driver for jdbc:postgresql://db/app on the class path: add the dependency org.postgresql:postgresql}), an
 * unreachable server reads {@code cannot reach jdbc:postgresql://db:5432 within 5s: <driver's reason>}, a
 * rejected login {@code authentication failed at jdbc:postgresql://db:5432: <driver's reason>}; no password is
 * ever part of them.
 */
public final class JdbcBackendProvider implements LockBackendProvider {
    /** The settings this provider understands. */
    public static final Set<String> SETTINGS = JdbcSettings.KNOWN;

    @Override
    public Set<String> schemes() {
        return Set.of("jdbc:postgresql", "jdbc:mariadb", "jdbc:mysql", "jdbc:h2");
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settingsMap) {
        String url = uri.toString();
        Dialect dialect = Dialect.fromUrl(url);
        // every setting is checked before a connection is opened
        JdbcSettings settings = JdbcSettings.read(url, settingsMap);
        JdbcMode mode = settings.mode();
        String password = settings.password();
        Drivers driver = Drivers.forUrl(settings.url().url());
        String description = Redaction.redact(url) + " (" + mode.name().toLowerCase(Locale.ROOT) + " mode)";
        HikariDataSource pool = JdbcConnections.openPool(url, driver, settings, settingsMap, description);
        JdbcLockBackend.Builder b = JdbcLockBackend.builder(pool)
                .mode(mode)
                .namespace(settings.namespace())
                .createTable(settings.createTable())
                .dialect(dialect);
        if (settings.table() != null) {
            b.table(settings.table());
        }
        b.description = description;
        b.secret = password != null ? password : passwordInUrl(url);
        b.ownedPool = pool;
        return b.build();
    }

    private static String passwordInUrl(String url) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)(?:password|passwd|pwd)=([^&;]*)")
                .matcher(url);
        if (m.find()) {
            return m.group(1);
        }
        m = java.util.regex.Pattern.compile("//[^/@:]*:([^/@]*)@").matcher(url);
        return m.find() ? m.group(1) : null;
    }
}

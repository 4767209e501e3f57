package io.latchkey.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import io.latchkey.spi.Redaction;
import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Serves {@code jdbc:postgresql:}, {@code jdbc:mariadb:}, {@code jdbc:mysql:} and {@code jdbc:h2:} URIs by
 * building a HikariCP pool (closed with the client) and a {@link JdbcLockBackend} on it.
 *
 * <p>Settings: {@code table} (default {@code latchkey_locks}, session mode {@code latchkey_session_locks}),
 * {@code mode} ({@code lease} | {@code session}), {@code poolSize} (1–1000, default 10; session mode pins one
 * connection per held lock), {@code namespace} (default empty), {@code createTable} ({@code true} |
 * {@code false}, default true), {@code user}, {@code password} (or in the URL, as the driver allows).
 * Unknown keys are rejected.
 */
public final class JdbcBackendProvider implements LockBackendProvider {
    /** The settings this provider understands. */
    public static final Set<String> SETTINGS = Set.of("table", "mode", "poolSize", "namespace", "createTable", "user", "password");
    private static final AtomicInteger POOLS = new AtomicInteger();

    @Override
    public Set<String> schemes() {
        return Set.of("jdbc:postgresql", "jdbc:mariadb", "jdbc:mysql", "jdbc:h2");
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        String url = uri.toString();
        Dialect dialect = Dialect.fromUrl(url);
        for (String key : settings.keySet()) {
            if (!SETTINGS.contains(key)) {
                throw new IllegalArgumentException("unknown setting '" + key + "' for " + Redaction.redact(url)
                        + "; the JDBC backend knows " + new TreeSet<>(SETTINGS));
            }
        }
        // every setting is checked before a connection is opened
        JdbcMode mode = parseMode(settings.get("mode"));
        String table = settings.containsKey("table") ? SqlNames.checkTable(settings.get("table")) : null;
        String namespace = settings.containsKey("namespace") ? SqlNames.checkNamespace(settings.get("namespace")) : "";
        boolean createTable = parseBoolean("createTable", settings.getOrDefault("createTable", "true"));
        int poolSize = parsePoolSize(settings.get("poolSize"));
        String password = settings.get("password");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        if (settings.containsKey("user")) {
            config.setUsername(settings.get("user"));
        }
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(Math.min(2, poolSize));
        config.setConnectionTimeout(10_000);
        config.setPoolName("latchkey-jdbc-" + POOLS.incrementAndGet());
        config.setAutoCommit(true);
        String lower = url.toLowerCase(Locale.ROOT);
        if (!lower.contains("sockettimeout")) {
            // a statement on a frozen server fails instead of hanging; session waits set their own timeout
            if (dialect == Dialect.POSTGRESQL) {
                config.addDataSourceProperty("socketTimeout", "30");
            } else if (dialect == Dialect.MARIADB) {
                config.addDataSourceProperty("socketTimeout", "30000");
            }
        }
        String description = Redaction.redact(url) + " (" + mode.name().toLowerCase(Locale.ROOT) + " mode)";
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(config);
        } catch (RuntimeException e) {
            String msg = Redaction.redact(String.valueOf(e.getMessage()));
            if (password != null && !password.isEmpty()) {
                msg = msg.replace(password, "***");
            }
            throw new io.latchkey.BackendUnavailableException("Could not open a connection pool to " + description + ": " + msg,
                    null, description, null);
        }
        JdbcLockBackend.Builder b = JdbcLockBackend.builder(pool).mode(mode).namespace(namespace)
                .createTable(createTable).dialect(dialect);
        if (table != null) {
            b.table(table);
        }
        b.description = description;
        b.secret = password != null ? password : passwordInUrl(url);
        b.ownedPool = pool;
        return b.build();
    }

    private static JdbcMode parseMode(String mode) {
        if (mode == null) {
            return JdbcMode.LEASE;
        }
        return switch (mode.trim().toLowerCase(Locale.ROOT)) {
            case "lease" -> JdbcMode.LEASE;
            case "session" -> JdbcMode.SESSION;
            default -> throw new IllegalArgumentException("setting mode must be 'lease' or 'session', was '" + mode + "'");
        };
    }

    private static boolean parseBoolean(String key, String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("setting " + key + " must be 'true' or 'false', was '" + value + "'");
        };
    }

    private static int parsePoolSize(String value) {
        if (value == null) {
            return 10;
        }
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1 && n <= 1000) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("setting poolSize must be a whole number from 1 to 1000, was '" + value + "'");
    }

    private static String passwordInUrl(String url) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)(?:password|passwd|pwd)=([^&;]*)").matcher(url);
        if (m.find()) {
            return m.group(1);
        }
        m = java.util.regex.Pattern.compile("//[^/@:]*:([^/@]*)@").matcher(url);
        return m.find() ? m.group(1) : null;
    }
}

package io.latchkey.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.StoreErrors;
import java.net.URI;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.time.Duration;
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
 * {@code false}, default true), {@code user}, {@code password} (or in the URL, as the driver allows),
 * {@code connectTimeout} ({@link StoreErrors#CONNECT_TIMEOUT}: a duration such as {@code 5s}, {@code 250ms},
 * {@code PT2S} or milliseconds; default 5 s; passed to the driver and to HikariCP). Unknown keys are rejected.
 *
 * <p>Errors at start, each one line: a missing driver names the Maven coordinates to add ({@code no JDBC
 * driver for jdbc:postgresql://db/app on the class path: add the dependency org.postgresql:postgresql}), an
 * unreachable server reads {@code cannot reach jdbc:postgresql://db:5432 within 5s: <driver's reason>}, a
 * rejected login {@code authentication failed at jdbc:postgresql://db:5432: <driver's reason>}; no password is
 * ever part of them.
 */
public final class JdbcBackendProvider implements LockBackendProvider {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(JdbcBackendProvider.class);
    /** The settings this provider understands. */
    public static final Set<String> SETTINGS = Set.of("table", "mode", "poolSize", "namespace", "createTable", "user", "password",
            StoreErrors.CONNECT_TIMEOUT);
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
        Duration connectTimeout = settings.containsKey(StoreErrors.CONNECT_TIMEOUT)
                ? parseTimeout(settings.get(StoreErrors.CONNECT_TIMEOUT)) : StoreErrors.DEFAULT_CONNECT_TIMEOUT;
        UrlCredentials inUrl = UrlCredentials.of(url);
        String user = oneOf("user", settings.get("user"), inUrl.user(), url);
        String password = oneOf("password", settings.get("password"), inUrl.password(), url);
        Drivers driver = Drivers.forUrl(inUrl.url());
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(driver.url());
        if (driver.driverClass() != null) {
            config.setDriverClassName(driver.driverClass());
        }
        if (user != null) {
            config.setUsername(user);
        }
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(Math.min(2, poolSize));
        // how long a borrower waits for a connection (a new one, or a free one when all are in use)
        config.setConnectionTimeout(Math.max(250, connectTimeout.toMillis()));
        config.setInitializationFailTimeout(1); // one attempt at start: its driver timeouts bound it
        config.setPoolName("latchkey-jdbc-" + POOLS.incrementAndGet());
        config.setAutoCommit(true);
        driverTimeouts(config, driver, connectTimeout, url.toLowerCase(Locale.ROOT));
        String description = Redaction.redact(url) + " (" + mode.name().toLowerCase(Locale.ROOT) + " mode)";
        HikariDataSource pool;
        long start = System.nanoTime();
        try {
            probe(driver, config, connectTimeout);
            pool = new HikariDataSource(config);
        } catch (SQLException | RuntimeException e) {
            throw OpenFailures.of(url, settings, connectTimeout, description, e);
        }
        log.debug("opened the pool of {} in {} ms", description, (System.nanoTime() - start) / 1_000_000);
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
        Thread t = new Thread(() -> {
            try (Connection c = d.connect(driver.url(), props)) {
                if (c == null) {
                    throw new SQLException("driver " + driver.driverClass() + " does not accept " + Redaction.redact(driver.url()), "08001");
                }
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "latchkey-jdbc-connect");
        t.setDaemon(true);
        t.start();
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

    /** 5s, 250ms, PT2S or a number of milliseconds; more than 0 and at most 10 minutes. */
    static Duration parseTimeout(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        Duration d = null;
        try {
            if (t.startsWith("p")) {
                d = Duration.parse(t.toUpperCase(Locale.ROOT));
            } else if (t.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).trim()));
            } else if (t.endsWith("s")) {
                d = Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1).trim()) * 1000));
            } else if (t.endsWith("m")) {
                d = Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1).trim()) * 60);
            } else {
                d = Duration.ofMillis(Long.parseLong(t));
            }
        } catch (NumberFormatException | java.time.format.DateTimeParseException e) {
            // reported below
        }
        if (d == null || d.isNegative() || d.isZero() || d.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException("setting " + StoreErrors.CONNECT_TIMEOUT + " must be a duration from 1ms to"
                    + " 10m such as 5s, 250ms, PT2S or a number of milliseconds, was '" + text + "'");
        }
        return d;
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

    /** A credential given in the URL's user-info or as a setting; both, when they differ, is ambiguous. */
    private static String oneOf(String key, String setting, String inUrl, String url) {
        if (setting != null && inUrl != null && !setting.equals(inUrl)) {
            throw new IllegalArgumentException("the " + key + " is given twice, in the URL's user info and as the setting '"
                    + key + "', with different values, for " + Redaction.redact(url) + "; give it once");
        }
        return setting != null ? setting : inUrl;
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

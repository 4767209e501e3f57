package io.latchkey.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.spi.DaemonThreads;
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
import java.util.concurrent.atomic.AtomicInteger;

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
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(JdbcBackendProvider.class);
    /** The settings this provider understands. */
    public static final Set<String> SETTINGS = JdbcSettings.KNOWN;
    private static final AtomicInteger POOLS = new AtomicInteger();

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
        Duration connectTimeout = settings.connectTimeout();
        String user = settings.user();
        String password = settings.password();
        Drivers driver = Drivers.forUrl(settings.url().url());
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
        config.setMaximumPoolSize(settings.poolSize());
        config.setMinimumIdle(Math.min(2, settings.poolSize()));
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
            throw OpenFailures.of(url, settingsMap, connectTimeout, description, e);
        }
        log.debug("opened the pool of {} in {} ms", description, (System.nanoTime() - start) / 1_000_000);
        JdbcLockBackend.Builder b = JdbcLockBackend.builder(pool).mode(mode).namespace(settings.namespace())
                .createTable(settings.createTable()).dialect(dialect);
        if (settings.table() != null) {
            b.table(settings.table());
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
        DaemonThreads.start("latchkey-jdbc-connect", () -> {
            try (Connection c = d.connect(driver.url(), props)) {
                if (c == null) {
                    throw new SQLException("driver " + driver.driverClass() + " does not accept " + Redaction.redact(driver.url()), "08001");
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

    private static String passwordInUrl(String url) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)(?:password|passwd|pwd)=([^&;]*)").matcher(url);
        if (m.find()) {
            return m.group(1);
        }
        m = java.util.regex.Pattern.compile("//[^/@:]*:([^/@]*)@").matcher(url);
        return m.find() ? m.group(1) : null;
    }
}

package io.latchkey.jdbc;

import io.latchkey.LockException;
import io.latchkey.spi.Redaction;
import java.util.Locale;

/*
 * Which JDBC driver serves a URL, found before any pool is built, so that a missing driver is reported as
 * the Maven coordinates to add rather than HikariCP's "Failed to get driver instance". The driver is looked
 * up in this module's class loader and in the thread's context class loader, the two places HikariCP looks.
 *
 * jdbc:mysql: is served by MySQL Connector/J when present, else by the MariaDB driver, which accepts that
 * scheme only with the permitMysqlScheme option: it is then added to the URL. A URL that carries
 * permitMysqlScheme itself goes to the MariaDB driver whenever that is present.
 */
record Drivers(String driverClass, String url) {
    static final String POSTGRESQL = "org.postgresql.Driver";
    static final String MARIADB = "org.mariadb.jdbc.Driver";
    static final String MYSQL = "com.mysql.cj.jdbc.Driver";
    static final String H2 = "org.h2.Driver";

    /** The driver for {@code url} and the URL to give it; a {@link LockException} naming the artifact if none. */
    static Drivers forUrl(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:postgresql:")) {
            return require(url, POSTGRESQL, "org.postgresql:postgresql");
        }
        if (lower.startsWith("jdbc:mariadb:")) {
            return require(url, MARIADB, "org.mariadb.jdbc:mariadb-java-client");
        }
        if (lower.startsWith("jdbc:h2:")) {
            return require(url, H2, "com.h2database:h2");
        }
        if (lower.startsWith("jdbc:mysql:")) {
            if (lower.contains("permitmysqlscheme") && present(MARIADB)) {
                return new Drivers(MARIADB, url); // an option only the MariaDB driver knows: its user chose it
            }
            if (present(MYSQL)) {
                return new Drivers(MYSQL, url);
            }
            if (present(MARIADB)) {
                return new Drivers(
                        MARIADB,
                        lower.contains("permitmysqlscheme")
                                ? url
                                : url + (url.indexOf('?') >= 0 ? "&" : "?") + "permitMysqlScheme");
            }
            throw missing(url, "com.mysql:mysql-connector-j (or org.mariadb.jdbc:mariadb-java-client)");
        }
        return new Drivers(null, url); // Dialect.fromUrl has rejected every other URL already
    }

    private static Drivers require(String url, String driverClass, String artifact) {
        if (!present(driverClass)) {
            throw missing(url, artifact);
        }
        return new Drivers(driverClass, url);
    }

    private static LockException missing(String url, String artifact) {
        String shown = Redaction.redact(url);
        return new LockException(
                "no JDBC driver for " + shown + " on the class path: add the dependency " + artifact, null, shown);
    }

    /** A new instance of the driver class, from whichever class loader has it. */
    java.sql.Driver load() throws java.sql.SQLException {
        for (ClassLoader loader : new ClassLoader[] {
            Drivers.class.getClassLoader(), Thread.currentThread().getContextClassLoader()
        }) {
            if (loader != null) {
                try {
                    return (java.sql.Driver) Class.forName(driverClass, true, loader)
                            .getDeclaredConstructor()
                            .newInstance();
                } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
                    // try the next loader
                }
            }
        }
        throw new java.sql.SQLException("JDBC driver " + driverClass + " could not be loaded");
    }

    static boolean present(String className) {
        return loads(className, Drivers.class.getClassLoader())
                || loads(className, Thread.currentThread().getContextClassLoader());
    }

    private static boolean loads(String className, ClassLoader loader) {
        if (loader == null) {
            return false;
        }
        try {
            Class.forName(className, false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}

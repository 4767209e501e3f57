package io.latchkey.cli;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * Lets the runnable jar serve {@code jdbc:mysql:} URLs (MySQL 8, and MariaDB servers named that way) with
 * the MariaDB driver it bundles. That driver accepts {@code jdbc:mysql:} only when the URL carries its
 * {@code permitMysqlScheme} option (so that it does not take over from MySQL Connector/J), and a user who
 * types the URL the MySQL documentation shows does not add it. This driver accepts such a URL only when no
 * other registered driver does (Connector/J on the class path, or a URL that already has the option, is used
 * as it is), and hands the MariaDB driver the same URL with {@code permitMysqlScheme} added. It changes
 * nothing else: the URL shown in messages stays the user's. Registered through
 * {@code META-INF/services/java.sql.Driver}; stateless and thread-safe.
 */
public final class MysqlSchemeDriver implements Driver {
    static final String PREFIX = "jdbc:mysql:";
    static final String OPTION = "permitMysqlScheme";

    static {
        try {
            DriverManager.registerDriver(new MysqlSchemeDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override
    public boolean acceptsURL(String url) {
        if (url == null || !url.regionMatches(true, 0, PREFIX, 0, PREFIX.length()) || mariadb() == null) {
            return false;
        }
        return DriverManager.drivers().noneMatch(d -> !(d instanceof MysqlSchemeDriver) && accepts(d, url));
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        Driver mariadb = mariadb();
        return acceptsURL(url) && mariadb != null ? mariadb.connect(withOption(url), info) : null;
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
        Driver mariadb = mariadb();
        return mariadb == null ? new DriverPropertyInfo[0] : mariadb.getPropertyInfo(withOption(url), info);
    }

    @Override
    public int getMajorVersion() {
        Driver mariadb = mariadb();
        return mariadb == null ? 0 : mariadb.getMajorVersion();
    }

    @Override
    public int getMinorVersion() {
        Driver mariadb = mariadb();
        return mariadb == null ? 0 : mariadb.getMinorVersion();
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no java.util.logging parent logger");
    }

    /** The URL with the MariaDB driver's {@code permitMysqlScheme} option added (before any #fragment). */
    static String withOption(String url) {
        int hash = url.indexOf('#');
        String base = hash < 0 ? url : url.substring(0, hash);
        String fragment = hash < 0 ? "" : url.substring(hash);
        return base + (base.indexOf('?') < 0 ? "?" : "&") + OPTION + fragment;
    }

    private static boolean accepts(Driver d, String url) {
        try {
            return d.acceptsURL(url);
        } catch (SQLException e) {
            return false;
        }
    }

    /** The bundled MariaDB driver, or null when it is not on the class path. */
    private static Driver mariadb() {
        return DriverManager.drivers()
                .filter(d -> d.getClass().getName().equals("org.mariadb.jdbc.Driver"))
                .findFirst()
                .orElse(null);
    }
}

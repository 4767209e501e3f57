package io.latchkey.jdbc;

import java.util.Locale;

/** The SQL dialects Latchkey speaks. Chosen from the JDBC URL, or from the driver's product name. */
public enum Dialect {
    /** PostgreSQL 12 and later. */
    POSTGRESQL("PostgreSQL"),
    /** MariaDB 10.3+ and MySQL 8 (the same statements serve both). */
    MARIADB("MariaDB/MySQL"),
    /** H2 2.x, embedded or server (for tests and single-process use). */
    H2("H2");

    private final String displayName;

    Dialect(String displayName) {
        this.displayName = displayName;
    }

    /**
     * A readable name, for messages.
     *
     * @return the dialect's name in messages
     */
    public String displayName() {
        return displayName;
    }

    /**
     * The dialect of a JDBC URL ({@code jdbc:postgresql:}, {@code jdbc:mariadb:}, {@code jdbc:mysql:}, {@code jdbc:h2:}).
     *
     * @param url a JDBC URL
     * @return its dialect
     * @throws IllegalArgumentException for a URL of another database (the message lists the supported ones)
     */
    public static Dialect fromUrl(String url) {
        String u = url == null ? "" : url.toLowerCase(Locale.ROOT);
        if (u.startsWith("jdbc:postgresql:")) {
            return POSTGRESQL;
        }
        if (u.startsWith("jdbc:mariadb:") || u.startsWith("jdbc:mysql:")) {
            return MARIADB;
        }
        if (u.startsWith("jdbc:h2:")) {
            return H2;
        }
        throw new IllegalArgumentException("unsupported JDBC URL '" + io.latchkey.spi.Redaction.redact(url)
                + "'; Latchkey supports jdbc:postgresql:, jdbc:mariadb:, jdbc:mysql: and jdbc:h2:");
    }

    /**
     * The dialect of a database product name as reported by {@link java.sql.DatabaseMetaData#getDatabaseProductName()}.
     *
     * @param product the product name, e.g. {@code PostgreSQL}
     * @return its dialect
     * @throws IllegalArgumentException for another database
     */
    public static Dialect fromProductName(String product) {
        String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (p.contains("postgres")) {
            return POSTGRESQL;
        }
        if (p.contains("mariadb") || p.contains("mysql")) {
            return MARIADB;
        }
        if (p.equals("h2")) {
            return H2;
        }
        throw new IllegalArgumentException(
                "unsupported database '" + product + "'; Latchkey supports PostgreSQL, MariaDB, MySQL and H2");
    }
}

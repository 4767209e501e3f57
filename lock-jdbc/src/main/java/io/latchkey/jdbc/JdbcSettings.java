package io.latchkey.jdbc;

import io.latchkey.spi.Settings;
import io.latchkey.spi.StoreErrors;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * The settings of a {@code jdbc:} URI, read with {@link Settings} (one grammar and one wording for every
 * backend) and checked before any connection is opened. The URL itself stays in the driver's syntax (H2's is
 * not hierarchical): only its user-info is taken out ({@link UrlCredentials}); a credential given both in the
 * URL and as a setting, with different values, is an error.
 *
 * <p>Defaults: {@code mode} lease, {@code table} {@code latchkey_locks} (session mode
 * {@code latchkey_session_locks}), {@code namespace} empty, {@code poolSize} 10 (1–1000), {@code createTable}
 * true, {@code connectTimeout} {@link StoreErrors#DEFAULT_CONNECT_TIMEOUT} (1ms–10m). Immutable.
 */
record JdbcSettings(
        JdbcMode mode,
        String table,
        String namespace,
        boolean createTable,
        int poolSize,
        Duration connectTimeout,
        UrlCredentials url,
        String user,
        String password) {
    /** The settings this backend understands. */
    static final Set<String> KNOWN = Set.of(
            "table", "mode", "poolSize", "namespace", "createTable", "user", "password", StoreErrors.CONNECT_TIMEOUT);

    private static final Duration MAX_CONNECT_TIMEOUT = Duration.ofMinutes(10);

    /** Reads and checks every setting; {@code table} is null for the mode's default. */
    static JdbcSettings read(String jdbcUrl, Map<String, String> settingsMap) {
        Settings s = Settings.of("JDBC", settingsMap).rejectUnknown(KNOWN);
        Map<String, String> raw = s.asMap();
        JdbcMode mode = s.choice("mode", JdbcMode.class, JdbcMode.LEASE);
        // identifiers are checked as given, blank included: SqlNames says what is allowed
        String table = raw.containsKey("table") ? SqlNames.checkTable(raw.get("table")) : null;
        String namespace = raw.containsKey("namespace") ? SqlNames.checkNamespace(raw.get("namespace")) : "";
        boolean createTable = s.flag("createTable", true);
        int poolSize = s.integer("poolSize", 10, 1, 1000);
        Duration connectTimeout = s.duration(
                StoreErrors.CONNECT_TIMEOUT,
                StoreErrors.DEFAULT_CONNECT_TIMEOUT,
                Duration.ofMillis(1),
                MAX_CONNECT_TIMEOUT);
        UrlCredentials inUrl = UrlCredentials.of(jdbcUrl);
        String user = oneOf("user", raw.get("user"), inUrl.user(), jdbcUrl);
        String password = oneOf("password", raw.get("password"), inUrl.password(), jdbcUrl);
        return new JdbcSettings(mode, table, namespace, createTable, poolSize, connectTimeout, inUrl, user, password);
    }

    /** A credential given in the URL's user-info or as a setting; both, when they differ, is ambiguous. */
    private static String oneOf(String key, String setting, String inUrl, String url) {
        if (setting != null && inUrl != null && !setting.equals(inUrl)) {
            throw new IllegalArgumentException("the " + key
                    + " is given twice, in the URL's user info and as the setting '" + key
                    + "', with different values, for " + io.latchkey.spi.Redaction.redact(url) + "; give it once");
        }
        return setting != null ? setting : inUrl;
    }

    /** Never shows the password. */
    @Override
    public String toString() {
        return "JdbcSettings[mode=" + mode + ", table=" + table + ", namespace=" + namespace + ", createTable="
                + createTable + ", poolSize=" + poolSize + ", connectTimeout=" + connectTimeout + ", user=" + user
                + "]";
    }
}

package io.latchkey.cli;

import io.latchkey.BackendProviderInfo;
import io.latchkey.Latchkey;
import io.latchkey.spi.BackendUri;
import io.latchkey.spi.Redaction;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a backend URI before anything connects, so that a typo is a usage error (exit 64) that says what
 * to type, rather than a stack trace or an "unavailable" status: the URI must parse, and some provider on
 * the class path must serve its scheme. The providers are discovered exactly as
 * {@link io.latchkey.Latchkey#connect(String)} discovers them. Stateless and thread-safe.
 */
final class BackendUris {
    static final String EXAMPLES = "for example mem:NAME, jdbc:h2:file:~/locks, jdbc:postgresql://host/db, "
            + "redis://host:6379, zookeeper://host:2181, etcd://host:2379";

    private static final Pattern MALFORMED = Pattern.compile("backend URI '(.*)' is malformed: (.*)", Pattern.DOTALL);

    private BackendUris() {}

    /**
     * Returns the URI if it is usable.
     *
     * @throws IllegalArgumentException saying what is wrong and what would be right
     */
    static String check(String uri, ClassLoader loader) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("the backend URI is empty; " + EXAMPLES);
        }
        String scheme;
        try {
            scheme = Latchkey.schemeOf(uri);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "malformed backend URI '" + Redaction.redact(uri) + "': it has no scheme; " + EXAMPLES);
        }
        try {
            BackendUri.toUri(uri.endsWith(":") ? uri + "/" : uri);
        } catch (IllegalArgumentException e) {
            // the SPI's message with its masking, worded as the CLI's other usage errors and with examples
            Matcher m = MALFORMED.matcher(String.valueOf(e.getMessage()));
            throw new IllegalArgumentException(
                    (m.matches()
                                    ? "malformed backend URI '" + m.group(1) + "': " + m.group(2)
                                    : "malformed backend URI: " + e.getMessage())
                            + ", " + EXAMPLES,
                    e);
        }
        List<BackendProviderInfo> found = Latchkey.providers(loader);
        TreeSet<String> schemes = new TreeSet<>();
        StringBuilder failed = new StringBuilder();
        boolean servedByABrokenProvider = false;
        for (BackendProviderInfo d : found) {
            if (d.loaded()) {
                schemes.addAll(d.schemes());
            } else {
                // connect() explains a provider that failed to load better than "unknown scheme" would
                servedByABrokenProvider |= d.schemes().contains(scheme);
                failed.append("; ").append(d.failure());
            }
        }
        boolean forced = System.getProperty(Latchkey.PROVIDER_SETTING) != null;
        if (!forced && !servedByABrokenProvider && !schemes.contains(scheme)) {
            throw new IllegalArgumentException("unknown scheme '" + scheme + ":' in backend URI '"
                    + Redaction.redact(uri) + "'; known schemes: "
                    + String.join(", ", schemes.stream().map(s -> s + ":").toList()) + failed);
        }
        return Objects.requireNonNull(uri);
    }

    /**
     * Runs {@code connect}; if it fails for a {@code jdbc:} URI that no JDBC driver on the class path accepts,
     * the failure is a missing driver, a usage error with the backend's own message (which names the driver
     * to add), rather than an unavailable store or a stack trace.
     */
    static <T> T explainingMissingDriver(String uri, ClassLoader loader, Supplier<T> connect) {
        try {
            return connect.get();
        } catch (RuntimeException e) {
            if (noJdbcDriverFor(uri, loader)) {
                throw new MissingDriverException(UsageErrors.oneLine(Redaction.redact(e.getMessage())), e);
            }
            throw e;
        }
    }

    /** Whether the URI is a JDBC URL that no registered or discoverable driver accepts. */
    static boolean noJdbcDriverFor(String uri, ClassLoader loader) {
        if (uri == null || !uri.regionMatches(true, 0, "jdbc:", 0, 5)) {
            return false;
        }
        if (DriverManager.drivers().anyMatch(d -> accepts(d, uri))) {
            return false;
        }
        // a driver on verify's --classpath is not registered with DriverManager's own class loader
        try {
            for (Driver d : ServiceLoader.load(Driver.class, loader)) {
                if (accepts(d, uri)) {
                    return false;
                }
            }
        } catch (java.util.ServiceConfigurationError e) {
            // a broken driver jar: it accepts nothing
        }
        return true;
    }

    private static boolean accepts(Driver d, String uri) {
        try {
            return d.acceptsURL(uri);
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }
}

package io.latchkey.cli;

import io.latchkey.core.ProviderRegistry;
import io.latchkey.spi.Redaction;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Checks a backend URI before anything connects, so that a typo is a usage error (exit 64) that says what
 * to type, rather than a stack trace or an "unavailable" status: the URI must parse, and some provider on
 * the class path must serve its scheme. The providers are discovered exactly as
 * {@link io.latchkey.Latchkey#connect(String)} discovers them. Stateless and thread-safe.
 */
final class BackendUris {
    static final String EXAMPLES = "for example mem:NAME, jdbc:h2:file:~/locks, jdbc:postgresql://host/db, "
            + "redis://host:6379, zookeeper://host:2181, etcd://host:2379";

    private BackendUris() {
    }

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
            scheme = ProviderRegistry.schemeOf(uri);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed backend URI '" + Redaction.redact(uri) + "': it has no scheme; " + EXAMPLES);
        }
        try {
            new URI(uri.endsWith(":") ? uri + "/" : uri);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("malformed backend URI '" + Redaction.redact(uri) + "': "
                    + Redaction.redact(e.getReason()) + " at index " + e.getIndex()
                    + "; percent-encode spaces and special characters (%20), " + EXAMPLES);
        }
        List<ProviderRegistry.Discovered> found = ProviderRegistry.discover(loader);
        TreeSet<String> schemes = new TreeSet<>();
        StringBuilder failed = new StringBuilder();
        for (ProviderRegistry.Discovered d : found) {
            if (d.provider() != null) {
                schemes.addAll(d.provider().schemes());
            } else {
                failed.append("; provider ").append(d.failedName()).append(" failed to load");
            }
        }
        boolean forced = System.getProperty(ProviderRegistry.PROVIDER_OVERRIDE) != null;
        if (!forced && !schemes.contains(scheme)) {
            throw new IllegalArgumentException("unknown scheme '" + scheme + ":' in backend URI '" + Redaction.redact(uri)
                    + "'; known schemes: " + String.join(", ", schemes.stream().map(s -> s + ":").toList()) + failed);
        }
        return Objects.requireNonNull(uri);
    }
}

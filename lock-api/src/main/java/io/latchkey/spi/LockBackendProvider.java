package io.latchkey.spi;

import java.net.URI;
import java.util.Map;
import java.util.Set;

/**
 * Creates {@link LockBackend}s for URI schemes. Found by {@link java.util.ServiceLoader}: list the class in
 * {@code META-INF/services/io.latchkey.spi.LockBackendProvider} and, in a named module,
 * {@code provides io.latchkey.spi.LockBackendProvider with ...}. Needs a public no-argument constructor.
 */
public interface LockBackendProvider {

    /**
     * The schemes this provider serves, lower case, without the colon: {@code "redis"}, {@code "mem"};
     * JDBC providers name the sub-protocol too: {@code "jdbc:postgresql"}.
     *
     * @return the schemes
     */
    Set<String> schemes();

    /**
     * Builds a backend for the URI.
     *
     *
     * @param uri      the URI, whose scheme is one of {@link #schemes()}
     * @param settings extra settings (timeouts, table names); unknown keys should be rejected with an
     *                 {@link IllegalArgumentException} that lists the known ones
     * @return the backend, ready to use
     */
    LockBackend create(URI uri, Map<String, String> settings);
}

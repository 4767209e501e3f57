package io.latchkey;

import io.latchkey.core.CoreLockClient;
import io.latchkey.core.LockNames;
import io.latchkey.core.ProviderRegistry;
import io.latchkey.spi.LockBackend;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * Entry point: connects to a lock store by URI, or wraps a backend built in code.
 *
 * <pre>{@code
 * try (LockClient locks = Latchkey.connect("mem:");
 *      LockHandle h = locks.lock("nightly-report").acquire(Duration.ofSeconds(10))) {
 *     report.write(h.fencingToken());
 * }
 * }</pre>
 *
 * <p>The backend is chosen by URI scheme among the {@link io.latchkey.spi.LockBackendProvider}s on the class
 * path: {@code mem:}, {@code jdbc:postgresql:}, {@code jdbc:mysql:}, {@code jdbc:mariadb:}, {@code jdbc:h2:},
 * {@code redis://}, {@code rediss://}, {@code redlock://}, {@code zookeeper://}, {@code etcd://}. If none
 * serves the scheme, the {@link LockException} lists the schemes found and names the artifact to add. The
 * setting or system property {@code latchkey.provider} forces a provider class.
 *
 * <p>Settings understood by the core for every backend: {@code owner} (label at the start of owner ids,
 * default {@code host/pid}). All other settings go to the backend.
 */
public final class Latchkey {
    /** Setting: label at the start of owner ids, shown by {@code inspect}; default {@code host/pid}. */
    public static final String OWNER_SETTING = "owner";
    /** Setting or system property: the provider class to use whatever the scheme. */
    public static final String PROVIDER_SETTING = ProviderRegistry.PROVIDER_OVERRIDE;

    private Latchkey() {}

    /**
     * Connects to the store named by the URI, with no extra settings.
     *
     * @param uri the store, e.g. {@code redis://host:6379} or {@code jdbc:postgresql://host/db}
     * @return a connected client; close it when done
     */
    public static LockClient connect(String uri) {
        return connect(uri, Map.of());
    }

    /**
     * Connects to the store named by the URI with backend settings (timeouts, table names, ...).
     *
     * @param uri the store, e.g. {@code redis://host:6379} or {@code jdbc:postgresql://host/db}
     * @param settings the backend's settings by name (also a way to keep a password out of the URI)
     * @return a connected client; close it when done
     */
    public static LockClient connect(String uri, Map<String, String> settings) {
        LockBackend backend = ProviderRegistry.create(uri, settings, classLoader());
        return new CoreLockClient(backend, settings.get(OWNER_SETTING));
    }

    /**
     * Connects to the store named by the URI with backend settings.
     *
     * @param uri the store
     * @param settings the backend's settings by name
     * @return a connected client; close it when done
     */
    public static LockClient connect(URI uri, Map<String, String> settings) {
        if (uri == null) {
            throw new IllegalArgumentException("backend URI must not be null");
        }
        return connect(uri.toString(), settings);
    }

    /**
     * A client over a backend built in code (from a pool or client the application already has).
     *
     * @param backend the backend; closing the client closes it
     * @return a client over that backend
     */
    public static LockClient client(LockBackend backend) {
        return new CoreLockClient(backend, null);
    }

    /**
     * As {@link #client(LockBackend)}, with a label at the start of owner ids.
     *
     * @param backend the backend; closing the client closes it
     * @param ownerLabel the label at the start of every owner id (for operators reading the store)
     * @return a client over that backend
     */
    public static LockClient client(LockBackend backend, String ownerLabel) {
        return new CoreLockClient(backend, ownerLabel);
    }

    /**
     * The backend for a URI, chosen among the providers {@code loader} sees exactly as {@link #connect} chooses,
     * without a client around it; for tools that drive the SPI themselves, such as a TCK run on a URI.
     *
     * @param uri      the backend URI
     * @param settings backend settings
     * @param loader   the class loader whose providers are considered
     * @return a new backend; the caller closes it
     * @throws IllegalArgumentException for a malformed URI or unknown scheme
     */
    public static LockBackend backend(String uri, Map<String, String> settings, ClassLoader loader) {
        return ProviderRegistry.create(uri, settings, loader);
    }

    /**
     * Every backend provider {@code loader} sees, loaded one by one; a provider that fails to load is listed
     * with the reason instead of failing the call.
     *
     * @param loader the class loader to search (class path and module path)
     * @return the providers in discovery order
     */
    public static List<BackendProviderInfo> providers(ClassLoader loader) {
        return ProviderRegistry.discover(loader).stream()
                .map(d -> new BackendProviderInfo(
                        d.provider() != null
                                ? d.provider().getClass().getName()
                                : d.failedName() != null ? d.failedName() : "unknown",
                        d.schemes(),
                        d.provider() != null ? null : d.failureSentence()))
                .toList();
    }

    /**
     * The scheme that selects a provider: {@code redis}, {@code mem}, and for JDBC URLs the sub-protocol too,
     * e.g. {@code jdbc:postgresql}. Lower case.
     *
     * @param uri a backend URI
     * @return the scheme
     * @throws IllegalArgumentException if the URI has no scheme (or a JDBC URL no sub-protocol)
     */
    public static String schemeOf(String uri) {
        if (uri == null) {
            throw new IllegalArgumentException("backend URI must not be null");
        }
        return ProviderRegistry.schemeOf(uri);
    }

    /**
     * Checks a lock name with the rule every {@link LockClient#lock(String)} applies: 1 to 255 bytes of UTF-8,
     * no control characters, well-formed UTF-16.
     *
     * @param name the name
     * @return the name, if valid
     * @throws IllegalArgumentException saying what is wrong and what is allowed
     */
    public static String checkLockName(String name) {
        return LockNames.check(name);
    }

    private static ClassLoader classLoader() {
        ClassLoader tccl = Thread.currentThread().getContextClassLoader();
        return tccl != null ? tccl : Latchkey.class.getClassLoader();
    }
}

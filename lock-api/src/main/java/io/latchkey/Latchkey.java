package io.latchkey;

import io.latchkey.core.CoreLockClient;
import io.latchkey.core.ProviderRegistry;
import io.latchkey.spi.LockBackend;
import java.net.URI;
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

    private Latchkey() {
    }

    /** Connects to the store named by the URI, with no extra settings. */
    public static LockClient connect(String uri) {
        return connect(uri, Map.of());
    }

    /** Connects to the store named by the URI with backend settings (timeouts, table names, ...). */
    public static LockClient connect(String uri, Map<String, String> settings) {
        LockBackend backend = ProviderRegistry.create(uri, settings, classLoader());
        return new CoreLockClient(backend, settings.get(OWNER_SETTING));
    }

    /** Connects to the store named by the URI with backend settings. */
    public static LockClient connect(URI uri, Map<String, String> settings) {
        if (uri == null) {
            throw new IllegalArgumentException("backend URI must not be null");
        }
        return connect(uri.toString(), settings);
    }

    /** A client over a backend built in code (from a pool or client the application already has). */
    public static LockClient client(LockBackend backend) {
        return new CoreLockClient(backend, null);
    }

    /** As {@link #client(LockBackend)}, with a label at the start of owner ids. */
    public static LockClient client(LockBackend backend, String ownerLabel) {
        return new CoreLockClient(backend, ownerLabel);
    }

    private static ClassLoader classLoader() {
        ClassLoader tccl = Thread.currentThread().getContextClassLoader();
        return tccl != null ? tccl : Latchkey.class.getClassLoader();
    }
}

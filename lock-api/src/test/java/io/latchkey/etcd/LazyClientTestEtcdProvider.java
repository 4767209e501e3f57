package io.latchkey.etcd;

import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import io.latchkey.testing.MissingDependency;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/** Loads fine; only create() touches the client library the tests hide, as a provider that links lazily. */
public final class LazyClientTestEtcdProvider implements LockBackendProvider {
    @Override
    public Set<String> schemes() {
        return Set.of("etcd", "etcds");
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        throw new IllegalStateException("client " + MissingDependency.version() + " is there after all");
    }
}

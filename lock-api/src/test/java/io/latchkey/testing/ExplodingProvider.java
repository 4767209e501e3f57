package io.latchkey.testing;

import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/** A provider that cannot be instantiated, registered in the test class path's META-INF/services. */
public final class ExplodingProvider implements LockBackendProvider {
    public ExplodingProvider() {
        throw new IllegalStateException("simulated missing native library");
    }

    @Override
    public Set<String> schemes() {
        return Set.of("boom");
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        throw new AssertionError();
    }
}

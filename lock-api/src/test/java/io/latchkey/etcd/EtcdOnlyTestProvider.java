package io.latchkey.etcd;

import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/** A lock-etcd stand-in of a version that serves etcd:// but not etcds://. */
public final class EtcdOnlyTestProvider implements LockBackendProvider {
    @Override
    public Set<String> schemes() {
        return Set.of("etcd");
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        throw new AssertionError();
    }
}

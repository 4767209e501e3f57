package io.latchkey.etcd;

import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/**
 * Serves {@code etcd://host:port[,host:port...][/namespace]}. Settings: {@code namespace}, {@code leaseTtl},
 * {@code requestTimeout}, {@code waitRecheck}, {@code connectTimeout}, {@code keepaliveTime}, {@code keepaliveTimeout}, {@code user}, {@code password},
 * {@code tls}, {@code tlsCa}, {@code tlsCert}, {@code tlsKey}; unknown keys are rejected with the list of known ones.
 */
public final class EtcdBackendProvider implements LockBackendProvider {

    @Override
    public Set<String> schemes() {
        return Set.of("etcd", "etcds"); // etcds:// = etcd:// with TLS
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        if (uri == null) {
            throw new IllegalArgumentException("etcd URI must not be null; use etcd://host:port[,host:port...]");
        }
        return EtcdLockBackend.connect(uri.toString(), settings == null ? Map.of() : settings);
    }
}

package io.latchkey.testing;

import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/** Present and loadable for every scheme Latchkey serves; create() reports a configuration problem, as a real one would. */
public final class MisconfiguredProvider implements LockBackendProvider {
    public static final Set<String> SCHEMES = Set.of(
            "mem",
            "redis",
            "rediss",
            "redlock",
            "zookeeper",
            "etcd",
            "etcds",
            "mongodb",
            "mongodb+srv",
            "jdbc:postgresql",
            "jdbc:mysql",
            "jdbc:mariadb",
            "jdbc:h2");

    @Override
    public Set<String> schemes() {
        return SCHEMES;
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        throw new IllegalArgumentException(
                uri.getScheme() + ": TLS is misconfigured: trust store /nonexistent/ca.pem does not exist");
    }
}

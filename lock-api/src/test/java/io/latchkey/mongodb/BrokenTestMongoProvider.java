package io.latchkey.mongodb;

import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import io.latchkey.testing.MissingDependency;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/**
 * A test provider in the package of Latchkey's MongoDB backend whose constructor refers to a class the tests hide:
 * as a real provider whose client library is missing, it cannot load (JDK 17: "Unable to get public no-arg
 * constructor"; JDK 25: a bare NoClassDefFoundError that names no provider).
 */
public final class BrokenTestMongoProvider implements LockBackendProvider {
    private final String clientVersion;

    public BrokenTestMongoProvider() {
        this(new MissingDependency());
    }

    public BrokenTestMongoProvider(MissingDependency client) {
        this.clientVersion = MissingDependency.version();
    }

    @Override
    public Set<String> schemes() {
        throw new AssertionError("never loads, so never asked: " + clientVersion);
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        throw new AssertionError();
    }
}

package io.latchkey.redis;

import io.latchkey.spi.LockBackend;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/** A test provider whose superclass the tests hide: on every JDK, ServiceLoader throws a bare NoClassDefFoundError. */
public final class SubclassedTestRedisProvider extends TestRedisProviderBase {
    @Override
    public Set<String> schemes() {
        return Set.of("redis", "rediss", "redlock");
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        throw new AssertionError();
    }
}

package io.latchkey.redis;

import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/**
 * Serves {@code redis://}, {@code rediss://} (TLS), {@code redlock://h1:p1,h2:p2,h3:p3},
 * {@code redis-sentinel://s1,s2,s3/master} and {@code redis-cluster://n1,n2,n3}. Settings (from the
 * map or the URI's query string) are those of {@link RedisSettings}; unknown keys are rejected.
 */
public final class RedisBackendProvider implements LockBackendProvider {

    @Override
    public Set<String> schemes() {
        return Set.of("redis", "rediss", "redlock", "redis-sentinel", "redis-cluster");
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        return RedisLockBackend.connect(uri, settings);
    }
}

package io.latchkey.mongodb;

import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/**
 * Serves {@code mongodb://} and {@code mongodb+srv://}: MongoDB's own connection string, with Latchkey's settings
 * ({@link MongoSettings#KEYS}) among its options or in the settings map, and the credentials in the URI or as the
 * settings {@code user} and {@code password}.
 */
public final class MongoBackendProvider implements LockBackendProvider {

    @Override
    public Set<String> schemes() {
        return Set.of("mongodb", "mongodb+srv");
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        if (uri == null) {
            throw new IllegalArgumentException("MongoDB URI must not be null; use mongodb://host[:port][/database]");
        }
        return MongoLockBackend.connect(uri, settings == null ? Map.of() : settings);
    }
}

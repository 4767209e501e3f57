package io.latchkey.testing;

import io.latchkey.mem.MemoryStore;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/** Not registered: chosen only through the latchkey.provider override. Records what it was given. */
public final class RecordingProvider implements LockBackendProvider {
    public static final AtomicReference<URI> LAST_URI = new AtomicReference<>();
    public static final AtomicReference<Map<String, String>> LAST_SETTINGS = new AtomicReference<>();

    @Override
    public Set<String> schemes() {
        return Set.of("recording");
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        LAST_URI.set(uri);
        LAST_SETTINGS.set(settings);
        return new MemoryStore().newBackend();
    }
}

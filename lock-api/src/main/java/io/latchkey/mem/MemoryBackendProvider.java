package io.latchkey.mem;

import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/**
 * Serves {@code mem:} URIs. {@code mem:} alone is a new private store (only this client sees it);
 * {@code mem:NAME} is the JVM-wide store of that name, shared by every client that connects to it. No
 * settings are accepted.
 */
public final class MemoryBackendProvider implements LockBackendProvider {

    @Override
    public Set<String> schemes() {
        return Set.of("mem");
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        if (!settings.isEmpty()) {
            throw new IllegalArgumentException("mem: takes no settings, got " + settings.keySet());
        }
        String ssp = uri.getSchemeSpecificPart();
        if (ssp == null || ssp.isEmpty() || ssp.equals("/")) {
            return new MemoryStore().newBackend();
        }
        if (ssp.startsWith("/") || uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("mem: URI must be mem: (private store) or mem:NAME (shared store), was '"
                    + io.latchkey.spi.Redaction.redact(uri.toString()) + "'");
        }
        return MemoryStore.named(ssp).newBackend();
    }
}

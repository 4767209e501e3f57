package io.latchkey.mem;

import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import io.latchkey.spi.Namespaces;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/**
 * Serves {@code mem:} URIs. {@code mem:} alone is a new private store (only this client sees it);
 * {@code mem:NAME} is the JVM-wide store of that name, shared by every client that connects to it. The one
 * setting is {@code namespace} (see {@link io.latchkey.spi.Namespaces}): each namespace of a named store is a store
 * of its own, so its clients never meet another namespace's locks.
 */
public final class MemoryBackendProvider implements LockBackendProvider {

    @Override
    public Set<String> schemes() {
        return Set.of("mem");
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        if (!settings.keySet().stream().allMatch(Namespaces.SETTING::equals)) {
            throw new IllegalArgumentException("mem: takes only the setting namespace, got " + settings.keySet());
        }
        String namespace = Namespaces.check(settings.getOrDefault(Namespaces.SETTING, ""));
        String ssp = uri.getSchemeSpecificPart();
        if (ssp == null || ssp.isEmpty() || ssp.equals("/")) {
            return new MemoryStore().newBackend(); // private: no other client to be kept apart from
        }
        if (ssp.startsWith("/") || uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("mem: URI must be mem: (private store) or mem:NAME (shared store), was '"
                    + io.latchkey.spi.Redaction.redact(uri.toString()) + "'");
        }
        // '#' cannot appear in a URI's scheme-specific part, so no store name looks like a namespaced one
        return MemoryStore.named(namespace.isEmpty() ? ssp : ssp + "#" + namespace).newBackend();
    }
}

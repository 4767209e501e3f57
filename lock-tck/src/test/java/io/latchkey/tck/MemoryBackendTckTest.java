package io.latchkey.tck;

import io.latchkey.mem.MemoryStore;
import io.latchkey.spi.LockBackend;

/** The in-memory backend passes the whole TCK, with its simulated outage as the outage fault hook. */
class MemoryBackendTckTest extends LockBackendTck {
    private final MemoryStore store = new MemoryStore();

    @Override
    protected LockBackend newBackend() {
        return store.newBackend();
    }

    /** A namespace of an in-memory store is a store of its own (as mem:NAME with the namespace setting). */
    @Override
    protected java.util.Optional<LockBackend> newBackendInNamespace(String namespace) {
        return java.util.Optional.of(namespaces.computeIfAbsent(namespace, n -> new MemoryStore()).newBackend());
    }

    private final java.util.Map<String, MemoryStore> namespaces = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    protected TckFaults faults() {
        return new TckFaults() {
            @Override
            public AutoCloseable outage() {
                store.setAvailable(false);
                return () -> store.setAvailable(true);
            }
        };
    }
}

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

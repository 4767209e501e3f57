package io.latchkey.tck.selftest;

import io.latchkey.mem.MemoryBackend;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.ForwardingLockBackend;
import java.time.Duration;

/**
 * A client of the in-memory store that forwards everything: the self-tests' flawed primitives (FlawedSemaphores,
 * FlawedReadWrite) extend it and override only what their defect changes.
 */
abstract class DecoratedMemoryBackend extends ForwardingLockBackend {
    final MemoryBackend store;
    private final String flaw;

    DecoratedMemoryBackend(MemoryBackend store, String flaw) {
        super(store);
        this.store = store;
        this.flaw = flaw;
    }

    @Override
    public String description() {
        return store.description() + " (" + flaw + ")";
    }

    /**
     * One {@link #tryAcquire} and the core's loop does the waiting: forwarding to the store's own wait would go round
     * a defect that a subclass puts in {@code tryAcquire}.
     */
    @Override
    public AcquireResult acquire(AcquireRequest request, Duration maxWait) {
        return tryAcquire(request);
    }
}

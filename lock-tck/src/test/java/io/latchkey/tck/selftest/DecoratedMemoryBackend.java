package io.latchkey.tck.selftest;

import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.mem.MemoryBackend;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantLossSink;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A client of the in-memory store that forwards everything: the self-tests' flawed primitives (FlawedSemaphores,
 * FlawedReadWrite) extend it and override only what their defect changes.
 */
abstract class DecoratedMemoryBackend implements LockBackend {
    final MemoryBackend store;
    private final String flaw;

    DecoratedMemoryBackend(MemoryBackend store, String flaw) {
        this.store = store;
        this.flaw = flaw;
    }

    @Override
    public String description() {
        return store.description() + " (" + flaw + ")";
    }

    @Override
    public Set<Capability> capabilities() {
        return store.capabilities();
    }

    @Override
    public TimeSource timeSource() {
        return store.timeSource();
    }

    @Override
    public void bind(GrantLossSink sink) {
        store.bind(sink);
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        return store.tryAcquire(request);
    }

    @Override
    public boolean awaitChange(AcquireRequest request, Duration timeout) throws InterruptedException {
        return store.awaitChange(request, timeout);
    }

    @Override
    public int availablePermits(String name, int limit) {
        return store.availablePermits(name, limit);
    }

    @Override
    public Grant downgrade(Grant write, AcquireRequest read) {
        return store.downgrade(write, read);
    }

    @Override
    public void withdraw(AcquireRequest request) {
        store.withdraw(request);
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        return store.renew(grant, lease);
    }

    @Override
    public boolean release(Grant grant) {
        return store.release(grant);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return store.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return store.list(prefix);
    }

    @Override
    public boolean forceRelease(String name) {
        return store.forceRelease(name);
    }

    @Override
    public void close() {
        store.close();
    }
}

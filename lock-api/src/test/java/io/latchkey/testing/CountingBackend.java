package io.latchkey.testing;

import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantLossSink;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the store calls the core makes, to prove round trips and renewal cadence. */
public final class CountingBackend implements LockBackend {
    private final LockBackend delegate;
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    public CountingBackend(LockBackend delegate) {
        this.delegate = delegate;
    }

    public int count(String method) {
        AtomicInteger n = calls.get(method);
        return n == null ? 0 : n.get();
    }

    public int total() {
        return calls.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    public void reset() {
        calls.clear();
    }

    private void hit(String method) {
        calls.computeIfAbsent(method, k -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public String description() {
        return delegate.description();
    }

    @Override
    public Set<Capability> capabilities() {
        return delegate.capabilities();
    }

    @Override
    public TimeSource timeSource() {
        return delegate.timeSource();
    }

    @Override
    public void bind(GrantLossSink sink) {
        delegate.bind(sink);
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest r) {
        hit("tryAcquire");
        return delegate.tryAcquire(r);
    }

    @Override
    public AcquireResult acquire(AcquireRequest r, Duration maxWait) throws InterruptedException {
        hit("acquire");
        return delegate.acquire(r, maxWait);
    }

    @Override
    public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        hit("awaitChange");
        return delegate.awaitChange(name, timeout);
    }

    @Override
    public RenewResult renew(Grant g, Duration lease) {
        hit("renew");
        return delegate.renew(g, lease);
    }

    @Override
    public boolean release(Grant g) {
        hit("release");
        return delegate.release(g);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        hit("inspect");
        return delegate.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        hit("list");
        return delegate.list(prefix);
    }

    @Override
    public boolean forceRelease(String name) {
        hit("forceRelease");
        return delegate.forceRelease(name);
    }

    @Override
    public void close() {
        delegate.close();
    }
}

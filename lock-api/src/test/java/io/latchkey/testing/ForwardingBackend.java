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
import java.util.Optional;
import java.util.Set;

/** Forwards every call, the time source and the loss sink included; tests override what they change. */
public class ForwardingBackend implements LockBackend {
    private final LockBackend delegate;

    public ForwardingBackend(LockBackend delegate) {
        this.delegate = delegate;
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
        return delegate.tryAcquire(r);
    }

    @Override
    public AcquireResult acquire(AcquireRequest r, Duration maxWait) throws InterruptedException {
        return delegate.acquire(r, maxWait);
    }

    @Override
    public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        return delegate.awaitChange(name, timeout);
    }

    @Override
    public boolean awaitChange(io.latchkey.spi.AcquireRequest request, Duration timeout) throws InterruptedException {
        return delegate.awaitChange(request, timeout);
    }

    @Override
    public @org.jspecify.annotations.Nullable String refusal(io.latchkey.Capability capability) {
        return delegate.refusal(capability);
    }

    @Override
    public void withdraw(AcquireRequest request) {
        delegate.withdraw(request);
    }

    @Override
    public Grant downgrade(Grant write, AcquireRequest read) {
        return delegate.downgrade(write, read);
    }

    @Override
    public int availablePermits(String name, int limit) {
        return delegate.availablePermits(name, limit);
    }

    @Override
    public RenewResult renew(Grant g, Duration lease) {
        return delegate.renew(g, lease);
    }

    @Override
    public boolean release(Grant g) {
        return delegate.release(g);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return delegate.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return delegate.list(prefix);
    }

    @Override
    public boolean forceRelease(String name) {
        return delegate.forceRelease(name);
    }

    @Override
    public void close() {
        delegate.close();
    }
}

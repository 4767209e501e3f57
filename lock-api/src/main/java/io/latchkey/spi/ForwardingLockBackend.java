package io.latchkey.spi;

import io.latchkey.Capability;
import io.latchkey.LockInfo;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A backend that forwards every call to another, the time source and the loss sink included: a decorator (metrics,
 * fault injection, a test's deliberate defect) extends it and overrides only what it changes, so that a method added
 * to {@link LockBackend} later is forwarded rather than silently answered by its default.
 */
public abstract class ForwardingLockBackend implements LockBackend {
    private final LockBackend delegate;

    /**
     * Forwards to {@code delegate}.
     *
     * @param delegate the backend every call goes to
     * @throws NullPointerException if {@code delegate} is null
     */
    protected ForwardingLockBackend(LockBackend delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /**
     * The backend every call goes to.
     *
     * @return the delegate
     */
    protected final LockBackend delegate() {
        return delegate;
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
    public AcquireResult tryAcquire(AcquireRequest request) {
        return delegate.tryAcquire(request);
    }

    @Override
    public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        return delegate.acquire(request, maxWait);
    }

    @Override
    public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        return delegate.awaitChange(name, timeout);
    }

    @Override
    public boolean awaitChange(AcquireRequest request, Duration timeout) throws InterruptedException {
        return delegate.awaitChange(request, timeout);
    }

    @Override
    public int availablePermits(String name, int limit) {
        return delegate.availablePermits(name, limit);
    }

    @Override
    public @Nullable String refusal(Capability capability) {
        return delegate.refusal(capability);
    }

    @Override
    public void withdraw(AcquireRequest request) {
        delegate.withdraw(request);
    }

    @Override
    public @Nullable Grant downgrade(Grant write, AcquireRequest read) {
        return delegate.downgrade(write, read);
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        return delegate.renew(grant, lease);
    }

    // renewalBatchSize and renewAll are not forwarded: a subclass that changes renew would be bypassed by the
    // delegate's batches. One that wants them (and changes renew in both or neither) overrides both. handOver is not
    // forwarded either, for the same reason: its default goes through this class's release.

    @Override
    public boolean release(Grant grant) {
        return delegate.release(grant);
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

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + delegate + "]";
    }
}

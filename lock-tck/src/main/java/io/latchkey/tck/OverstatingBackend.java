package io.latchkey.tck;

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
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The backend under test with one lie added: every grant and renewal reports an hour more validity than the backend
 * said. The rule that uses it proves that the core bounds validity itself (docs/design.md §4.3), so that a backend
 * that overstates cannot make a holder believe it holds a lock the store has moved on from.
 */
final class OverstatingBackend implements LockBackend {
    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

    private final LockBackend delegate;

    OverstatingBackend(LockBackend delegate) {
        this.delegate = delegate;
    }

    private static AcquireResult overstated(AcquireResult r) {
        return r instanceof Grant g
                ? new Grant(g.name(), g.owner(), g.fencingToken(), later(g.validUntilNanos()), g.state(), g.kind())
                : r;
    }

    private static long later(long validUntil) {
        return validUntil == Long.MAX_VALUE ? validUntil : validUntil + HOUR;
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        return overstated(delegate.tryAcquire(request));
    }

    @Override
    public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        return overstated(delegate.acquire(request, maxWait));
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        RenewResult r = delegate.renew(grant, lease);
        return r.held() ? RenewResult.renewed(later(r.validUntilNanos())) : r;
    }

    @Override
    public @Nullable Grant downgrade(Grant write, AcquireRequest read) {
        Grant g = delegate.downgrade(write, read);
        return g == null ? null : (Grant) overstated(g);
    }

    // ---------------------------------------------------------------- forwarded unchanged

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
}

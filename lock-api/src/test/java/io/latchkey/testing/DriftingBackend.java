package io.latchkey.testing;

import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantLossSink;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/** Subtracts a clock-drift allowance from every validity, as Redlock must (DESIGN §4.3). */
public final class DriftingBackend implements LockBackend {
    private final LockBackend delegate;
    private final long driftNanos;

    public DriftingBackend(LockBackend delegate, long driftNanos) {
        this.delegate = delegate;
        this.driftNanos = driftNanos;
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
    public void bind(GrantLossSink sink) {
        delegate.bind(sink);
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        AcquireResult r = delegate.tryAcquire(request);
        if (r instanceof Grant g) {
            return new Grant(g.name(), g.owner(), g.fencingToken(), g.validUntilNanos() - driftNanos, g.state());
        }
        return r;
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        RenewResult r = delegate.renew(grant, lease);
        return r.held() ? RenewResult.renewed(r.validUntilNanos() - driftNanos) : r;
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
    public void close() {
        delegate.close();
    }
}

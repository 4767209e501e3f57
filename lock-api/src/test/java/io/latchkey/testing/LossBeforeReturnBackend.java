package io.latchkey.testing;

import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantLossSink;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/** Reports every grant as lost (session gone) through the sink before returning it: the earliest possible loss. */
public final class LossBeforeReturnBackend implements LockBackend {
    private final LockBackend delegate;
    private volatile GrantLossSink sink;

    public LossBeforeReturnBackend(LockBackend delegate) {
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
    public void bind(GrantLossSink sink) {
        this.sink = sink;
        delegate.bind(sink);
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        AcquireResult r = delegate.tryAcquire(request);
        if (r instanceof Grant g) {
            sink.grantLost(
                    g.name(), g.owner(), LockLoss.Reason.SESSION_LOST, "session ended right after the grant", null);
        }
        return r;
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        return delegate.renew(grant, lease);
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

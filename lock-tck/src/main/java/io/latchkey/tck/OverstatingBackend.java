package io.latchkey.tck;

import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.ForwardingLockBackend;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The backend under test with one lie added: every grant and renewal reports an hour more validity than the backend
 * said. The rule that uses it proves that the core bounds validity itself (docs/design.md §4.3), so that a backend
 * that overstates cannot make a holder believe it holds a lock the store has moved on from.
 */
final class OverstatingBackend extends ForwardingLockBackend {
    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

    OverstatingBackend(LockBackend delegate) {
        super(delegate);
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
        return overstated(super.tryAcquire(request));
    }

    @Override
    public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        return overstated(super.acquire(request, maxWait));
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        RenewResult r = super.renew(grant, lease);
        return r.held() ? RenewResult.renewed(later(r.validUntilNanos())) : r;
    }

    @Override
    public @Nullable Grant downgrade(Grant write, AcquireRequest read) {
        Grant g = super.downgrade(write, read);
        return g == null ? null : (Grant) overstated(g);
    }
}

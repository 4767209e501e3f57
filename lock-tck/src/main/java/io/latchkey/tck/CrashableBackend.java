package io.latchkey.tck;

import io.latchkey.BackendUnavailableException;
import io.latchkey.LockInfo;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Wraps a backend so the TCK can crash the client that uses it: after {@link #crash}, the wrapped backend
 * has been closed without releasing, and every call fails as a dead process's would. Grants it held stay in
 * the store until their lease or session ends, which is what the lease rules need to observe. Every call that reaches
 * the store checks for the crash; the rest (description, capabilities, clock, refusals, withdrawals) is forwarded.
 */
final class CrashableBackend extends io.latchkey.spi.ForwardingLockBackend {
    private volatile boolean crashed;
    // acquisition calls made through this client that the store answered, or that are waiting in the store
    private final java.util.concurrent.atomic.AtomicInteger answeredOrWaiting =
            new java.util.concurrent.atomic.AtomicInteger();

    CrashableBackend(LockBackend delegate) {
        super(delegate);
    }

    /** Whether an acquisition through this client has asked the store (answered, or waiting in it). */
    boolean hasAskedTheStore() {
        return answeredOrWaiting.get() > 0;
    }

    void crash(TckFaults faults) {
        crashed = true;
        faults.crash(delegate());
    }

    private void alive() {
        if (crashed) {
            throw new BackendUnavailableException("client crashed by the TCK", null, delegate().description(), null);
        }
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        alive();
        try {
            return delegate().tryAcquire(request);
        } finally {
            answeredOrWaiting.incrementAndGet();
        }
    }

    @Override
    public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        alive();
        answeredOrWaiting.incrementAndGet(); // a native wait may block in here until the release
        return delegate().acquire(request, maxWait);
    }

    @Override
    public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        alive();
        answeredOrWaiting.incrementAndGet();
        return delegate().awaitChange(name, timeout);
    }

    @Override
    public boolean awaitChange(AcquireRequest request, Duration timeout) throws InterruptedException {
        alive();
        answeredOrWaiting.incrementAndGet();
        return delegate().awaitChange(request, timeout);
    }

    @Override
    public Grant downgrade(Grant write, AcquireRequest read) {
        alive();
        return delegate().downgrade(write, read);
    }

    @Override
    public int availablePermits(String name, int limit) {
        alive();
        return delegate().availablePermits(name, limit);
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        alive();
        return delegate().renew(grant, lease);
    }

    /** The delegate's batches, so that the TCK exercises a backend's renewAll (checked for the crash as renew is). */
    @Override
    public int renewalBatchSize() {
        return delegate().renewalBatchSize();
    }

    @Override
    public List<RenewResult> renewAll(List<Grant> grants, List<Duration> leases) {
        alive();
        return delegate().renewAll(grants, leases);
    }

    @Override
    public boolean release(Grant grant) {
        alive();
        return delegate().release(grant);
    }

    /** The delegate's hand-over, so that the TCK exercises a backend's own (checked for the crash as release is). */
    @Override
    public io.latchkey.spi.HandOver handOver(Grant held, AcquireRequest next) {
        alive();
        return delegate().handOver(held, next);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        alive();
        return delegate().inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        alive();
        return delegate().list(prefix);
    }

    @Override
    public boolean forceRelease(String name) {
        alive();
        return delegate().forceRelease(name);
    }

    @Override
    public void close() {
        if (!crashed) {
            delegate().close();
        }
    }
}

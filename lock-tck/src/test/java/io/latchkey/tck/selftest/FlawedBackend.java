package io.latchkey.tck.selftest;

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
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One client of a {@link FlawedStore}. It claims {@link Capability#LISTING}, and {@link Capability#NATIVE_WAIT} only
 * on a store whose flaw {@link Flaw#waitsInTheStore() waits in the store} (elsewhere the core polls with backoff);
 * no fairness; its expiry uses the local monotonic clock.
 */
final class FlawedBackend implements LockBackend {
    private static final Set<Capability> CAPABILITIES = EnumSet.of(Capability.LISTING);
    private static final Set<Capability> WAITING_IN_THE_STORE = EnumSet.of(Capability.LISTING, Capability.NATIVE_WAIT);

    private final FlawedStore store;
    private volatile GrantLossSink sink;

    FlawedBackend(FlawedStore store) {
        this.store = store;
    }

    @Override
    public String description() {
        return store.description();
    }

    @Override
    public Set<Capability> capabilities() {
        return store.waitsInTheStore() ? WAITING_IN_THE_STORE : CAPABILITIES;
    }

    @Override
    public void bind(GrantLossSink sink) {
        this.sink = sink;
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        AcquireResult r = store.tryAcquire(request, this);
        if (store.flaw() == Flaw.LEASE_SET_BY_A_SECOND_REQUEST && r instanceof Grant g) {
            store.renew(g, request.lease()); // FLAW: the lease comes in a second request
        }
        return r;
    }

    @Override
    public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        return store.waitsInTheStore() ? store.acquire(request, maxWait, this) : tryAcquire(request);
    }

    @Override
    public boolean awaitChange(AcquireRequest request, Duration timeout) throws InterruptedException {
        if (!store.waitsInTheStore()) {
            return LockBackend.super.awaitChange(request, timeout);
        }
        return store.awaitChange(request, timeout);
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        return store.renew(grant, lease);
    }

    @Override
    public int renewalBatchSize() {
        return store.flaw() == Flaw.BATCH_RENEWS_ONLY_THE_FIRST ? 64 : 1;
    }

    @Override
    public List<RenewResult> renewAll(List<Grant> grants, List<Duration> leases) {
        if (store.flaw() != Flaw.BATCH_RENEWS_ONLY_THE_FIRST) {
            return LockBackend.super.renewAll(grants, leases);
        }
        long start = System.nanoTime();
        List<RenewResult> out = new java.util.ArrayList<>();
        for (int i = 0; i < grants.size(); i++) {
            out.add(i == 0
                    ? store.renew(grants.get(0), leases.get(0))
                    : RenewResult.renewed(start + leases.get(i).toNanos())); // FLAW: never sent to the store
        }
        return out;
    }

    @Override
    public boolean release(Grant grant) {
        return store.release(grant);
    }

    @Override
    public io.latchkey.spi.HandOver handOver(Grant held, AcquireRequest next) {
        return store.handOver(held, next, this);
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

    /** Called by the store when it removed a grant this client made. */
    void reportLost(String name, String owner, LockLoss.Reason reason, String detail) {
        GrantLossSink s = sink;
        if (s != null) {
            s.grantLost(name, owner, reason, detail, null);
        }
    }

    @Override
    public void close() {
        // nothing to free; grants stay in the store until released or expired, as a server's would
    }

    @Override
    public String toString() {
        return "FlawedBackend[" + description() + "]";
    }
}

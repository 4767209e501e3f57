package io.latchkey.tck.selftest;

import io.latchkey.Capability;
import io.latchkey.mem.MemoryBackend;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/*
 * A client of the in-memory store whose semaphores have one deliberate defect (SemaphoreFlaw); its exclusive locks
 * are the store's own. The store's semaphores are correct, so each defect is put in front of them: the decorator
 * asks the store for something else than the core asked for, and answers the core as if it had not. The store's
 * grant travels in the answered grant's state, so renew and release reach the store's own grant.
 */
final class FlawedSemaphores extends DecoratedMemoryBackend {
    /** The one defect; NONE is the control. */
    enum SemaphoreFlaw {
        NONE,
        /** The store is asked for one permit more than the semaphore has: one grant too many fits. */
        OVER_GRANT_BY_ONE,
        /** release() answers true but gives nothing back: the permits stay out until their lease ends. */
        PERMIT_LEAK,
        /** Grants are made for an hour whatever the lease: a dead holder's permits do not come back. */
        NO_RETURN_AFTER_DEATH,
        /** Every grant carries token 1. */
        SHARED_TOKEN,
        /** Stores nothing, grants everything: every request is granted, every permit always counts as free. */
        GRANTS_EVERYTHING
    }

    private static final Duration AN_HOUR = Duration.ofHours(1);

    private final SemaphoreFlaw flaw;
    private final AtomicLong everyToken; // GRANTS_EVERYTHING: one rising counter per store, shared by its clients

    FlawedSemaphores(MemoryBackend store, SemaphoreFlaw flaw, AtomicLong everyToken) {
        super(store, "semaphore flaw " + flaw);
        this.flaw = flaw;
        this.everyToken = everyToken;
    }

    @Override
    public Set<Capability> capabilities() {
        Set<Capability> caps = EnumSet.copyOf(store.capabilities());
        caps.add(Capability.SEMAPHORE);
        return caps;
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        GrantKind kind = request.kind();
        if (kind.type() != GrantKind.Type.PERMITS) {
            return store.tryAcquire(request);
        }
        if (flaw == SemaphoreFlaw.GRANTS_EVERYTHING) {
            long validUntil = timeSource().nanoTime() + request.lease().toNanos();
            return new Grant(request.name(), request.owner(), everyToken.incrementAndGet(), validUntil, null, kind);
        }
        AcquireRequest asked = switch (flaw) {
            case OVER_GRANT_BY_ONE -> withKind(request, GrantKind.permits(kind.permits(), kind.limit() + 1));
            case NO_RETURN_AFTER_DEATH ->
                new AcquireRequest(request.name(), request.owner(), AN_HOUR, request.fairness(), kind);
            default -> request;
        };
        AcquireResult result = store.tryAcquire(asked);
        if (!(result instanceof Grant g)) {
            return result;
        }
        long token = flaw == SemaphoreFlaw.SHARED_TOKEN ? 1 : g.fencingToken();
        long validUntil = flaw == SemaphoreFlaw.NO_RETURN_AFTER_DEATH
                ? g.validUntilNanos() - AN_HOUR.toNanos() + request.lease().toNanos()
                : g.validUntilNanos();
        return new Grant(g.name(), g.owner(), token, validUntil, g, kind);
    }

    @Override
    public boolean awaitChange(AcquireRequest request, Duration timeout) throws InterruptedException {
        if (request.kind().type() == GrantKind.Type.PERMITS && flaw == SemaphoreFlaw.OVER_GRANT_BY_ONE) {
            GrantKind k = request.kind();
            return store.awaitChange(withKind(request, GrantKind.permits(k.permits(), k.limit() + 1)), timeout);
        }
        return store.awaitChange(request, timeout);
    }

    @Override
    public int availablePermits(String name, int limit) {
        return switch (flaw) {
            case GRANTS_EVERYTHING -> limit;
            case OVER_GRANT_BY_ONE -> store.availablePermits(name, limit + 1) - 1;
            default -> store.availablePermits(name, limit);
        };
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        if (grant.kind().type() != GrantKind.Type.PERMITS) {
            return store.renew(grant, lease);
        }
        if (flaw == SemaphoreFlaw.GRANTS_EVERYTHING) {
            return RenewResult.renewed(timeSource().nanoTime() + lease.toNanos());
        }
        Grant inner = (Grant) grant.state();
        if (flaw == SemaphoreFlaw.NO_RETURN_AFTER_DEATH) {
            RenewResult r = store.renew(inner, AN_HOUR);
            return r.held() ? RenewResult.renewed(r.validUntilNanos() - AN_HOUR.toNanos() + lease.toNanos()) : r;
        }
        return store.renew(inner, lease);
    }

    @Override
    public boolean release(Grant grant) {
        if (grant.kind().type() != GrantKind.Type.PERMITS) {
            return store.release(grant);
        }
        if (flaw == SemaphoreFlaw.GRANTS_EVERYTHING || flaw == SemaphoreFlaw.PERMIT_LEAK) {
            return true;
        }
        return store.release((Grant) grant.state());
    }

    private static AcquireRequest withKind(AcquireRequest r, GrantKind kind) {
        return new AcquireRequest(r.name(), r.owner(), r.lease(), r.fairness(), kind);
    }
}

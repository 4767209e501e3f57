package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.latchkey.Capability;
import io.latchkey.Fairness;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.LockBackend;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;

/** Helpers of the rules stated at the SPI level, where the core cannot mask a backend's fault. */
final class SpiCalls {
    private SpiCalls() {}

    static AcquireRequest request(String name, String owner, Duration lease) {
        return new AcquireRequest(name, owner, lease, Fairness.NONE);
    }

    /** The grant {@code r} must be, for a free lock. */
    static Grant granted(AcquireResult r, String name, String call) {
        assertInstanceOf(Grant.class, r, () -> call + " on free lock '" + name + "' did not grant it: " + r);
        return (Grant) r;
    }

    /**
     * Lets the store end a grant without its holder: its lease runs out (lease stores, the caller waits for it), or,
     * on a session-bound store, where it lasts while the session does, an operator removes it (forceRelease).
     */
    static void endGrantByStore(TckContext tck, LockBackend holder, String name) {
        if (holder.capabilities().contains(Capability.SESSION_BOUND)) {
            try {
                Assumptions.assumeTrue(tck.newBackend().forceRelease(name), "forced release found no grant");
            } catch (UnsupportedOperationException e) {
                Assumptions.abort(
                        "a session-bound backend without forceRelease cannot end a grant while its session lives");
            }
        }
    }

    /** Retries {@code tryAcquire} until granted; fails after {@code within} with what the grant was waiting for. */
    static Grant awaitGrant(LockBackend backend, AcquireRequest request, Duration within, String because) {
        AtomicReference<Grant> got = new AtomicReference<>();
        try {
            Tck.await(within).until(() -> {
                AcquireResult r = backend.tryAcquire(request);
                if (r instanceof Grant g) {
                    got.set(g);
                    return true;
                }
                return false;
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("LockBackend.tryAcquire: '" + request.name() + "' was not granted to "
                    + request.owner() + " within " + within.toMillis() + " ms although " + because);
        }
        return got.get();
    }

    /**
     * Waits until the store no longer shows {@code g} (its lease ran out, or it was force-released), failing after
     * lease + slack with the obligation that was broken.
     */
    static void awaitEnded(TckContext tck, String name, Grant g, Duration lease) {
        LockBackend observer = tck.newBackend();
        Duration bound = lease.plus(tck.settings().slack());
        try {
            Tck.await(bound).until(() -> observer.inspect(name).isEmpty());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("LockBackend.inspect still shows '" + name + "' (token " + g.fencingToken() + ") "
                    + bound.toMillis() + " ms after its unrenewed lease of " + lease.toMillis() + " ms began");
        }
    }
}

package io.latchkey.core;

import io.latchkey.Durations;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A user's view of a {@link HeldLock}. Reentrant acquisitions get one view each over the same grant; each
 * view releases its own hold once, and the grant goes back to the store with the last hold.
 */
final class CoreHandle implements LockHandle {
    private static final Logger log = LoggerFactory.getLogger(CoreHandle.class);

    private final HeldLock held;
    // a VarHandle on a field rather than an AtomicBoolean: one handle per acquisition, one object fewer per cycle
    private volatile boolean released;

    private static final java.lang.invoke.VarHandle RELEASED;

    static {
        try {
            RELEASED = java.lang.invoke.MethodHandles.lookup().findVarHandle(CoreHandle.class, "released", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    CoreHandle(HeldLock held) {
        this.held = held;
    }

    @Override
    public String name() {
        return held.name();
    }

    @Override
    public long fencingToken() {
        return held.grant.fencingToken();
    }

    @Override
    public String owner() {
        return held.grant.owner();
    }

    @Override
    public Instant acquiredAt() {
        return held.acquiredAt();
    }

    @Override
    public Instant validUntil() {
        return held.validUntil();
    }

    @Override
    public Duration remaining() {
        return released ? Duration.ZERO : held.remaining();
    }

    @Override
    public boolean isValid() {
        return !released && held.isValid();
    }

    @Override
    public boolean renew() {
        return renew(held.options.lease());
    }

    @Override
    public boolean renew(Duration lease) {
        Durations.requireLease(lease, "lease");
        if (released) {
            return false;
        }
        return held.renew(lease);
    }

    HeldLock held() {
        return held;
    }

    /** Marks this view released without touching the store (its grant was downgraded); false if it already was. */
    boolean markReleased() {
        return RELEASED.compareAndSet(this, false, true);
    }

    /** Undoes {@link #markReleased()} (the downgrade was refused before anything changed). */
    void unmarkReleased() {
        released = false;
    }

    @Override
    public boolean release() {
        if (!RELEASED.compareAndSet(this, false, true)) {
            return false;
        }
        return held.releaseHold();
    }

    @Override
    public void close() {
        try {
            release();
        } catch (RuntimeException e) {
            log.warn(
                    "Could not release lock '{}' (token {}) on {}; it will expire by its lease",
                    name(),
                    fencingToken(),
                    held.client.backend(),
                    e);
        }
    }

    @Override
    public CompletionStage<LockLoss> lost() {
        return held.lost();
    }

    @Override
    public void onLost(Consumer<? super LockLoss> listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        held.lost().thenAccept(loss -> {
            try {
                listener.accept(loss);
            } catch (RuntimeException e) {
                log.warn("onLost listener for lock '{}' failed; ignored", loss.name(), e);
            }
        });
    }

    @Override
    public String toString() {
        return "LockHandle['" + name() + "', token " + fencingToken() + ", owner " + owner()
                + (isValid() ? ", valid for " + remaining() : ", not valid") + "]";
    }
}

package io.latchkey.mem;

import io.latchkey.spi.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when told to, for deterministic tests: build a {@link MemoryStore} on it, and
 * {@link #advance(Duration)} past a lease to expire grants. Expired grants are reported as lost
 * ({@link io.latchkey.LockLoss.Reason#EXPIRED}) to their holders during {@code advance}, before it returns.
 * Thread-safe.
 */
public final class VirtualClock implements TimeSource {
    private final AtomicLong nanos = new AtomicLong();
    private final Instant origin;
    private final CopyOnWriteArrayList<Runnable> onAdvance = new CopyOnWriteArrayList<>();

    /**
     * A clock starting at the given wall instant.
     *
     * @param origin the wall instant of the clock's start
     */
    public VirtualClock(Instant origin) {
        if (origin == null) {
            throw new IllegalArgumentException("origin must not be null");
        }
        this.origin = origin;
    }

    /** A clock starting at 2000-01-01T00:00:00Z. */
    public VirtualClock() {
        this(Instant.parse("2000-01-01T00:00:00Z"));
    }

    /**
     * Moves time forward and lets the stores on this clock expire what ran out.
     *
     * @param by how far to move, not negative
     */
    public void advance(Duration by) {
        if (by == null || by.isNegative()) {
            throw new IllegalArgumentException(
                    "a virtual clock only moves forward; advance by zero or more, was " + by);
        }
        nanos.addAndGet(by.toNanos());
        for (Runnable r : onAdvance) {
            r.run();
        }
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    @Override
    public Instant now() {
        return origin.plusNanos(nanos.get());
    }

    void onAdvance(Runnable r) {
        onAdvance.add(r);
    }

    @Override
    public String toString() {
        return "VirtualClock[" + now() + "]";
    }
}

package io.latchkey.tck;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A register updated by a deliberately non-atomic read-modify-write with a pause in the middle: without
 * exclusion, concurrent increments overwrite each other and the final value falls short. Reads and writes
 * are individually visible across threads (so only missing exclusion, not caching, loses updates).
 */
public final class LostUpdateRegister {
    private final AtomicLong value = new AtomicLong();

    /** Adds one by reading, pausing and writing: two increments at once lose one of them. */
    public void increment() {
        long v = value.get();
        for (int i = 0; i < 64; i++) {
            Thread.onSpinWait(); // widen the window between read and write
        }
        value.set(v + 1);
    }

    /**
     * The count so far.
     *
     * @return the value
     */
    public long value() {
        return value.get();
    }
}

package io.latchkey.tck;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Detects two holders inside a critical section at once: {@link #enter} claims the section for a holder
 * with a compare-and-set, {@link #exit} gives it back. Any failed claim is an overlap, counted with the
 * holders involved.
 */
public final class OverlapDetector {
    private final AtomicReference<String> occupant = new AtomicReference<>();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicReference<String> firstOverlap = new AtomicReference<>();

    /**
     * Claims the section; counts an overlap if someone else is inside.
     *
     * @param holder who enters, named in the overlap's description
     */
    public void enter(String holder) {
        String other = occupant.getAndSet(holder);
        if (other != null) {
            overlaps.incrementAndGet();
            firstOverlap.compareAndSet(null, holder + " entered while " + other + " was inside");
        }
    }

    /**
     * Leaves the section, if {@code holder} is the one inside.
     *
     * @param holder who leaves
     */
    public void exit(String holder) {
        occupant.compareAndSet(holder, null);
    }

    /**
     * How many times someone entered while another was inside.
     *
     * @return the overlaps
     */
    public int overlaps() {
        return overlaps.get();
    }

    /**
     * A description of the first overlap, or null.
     *
     * @return the description, or {@code null} if none
     */
    public String firstOverlap() {
        return firstOverlap.get();
    }
}

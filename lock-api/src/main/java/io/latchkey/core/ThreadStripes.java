package io.latchkey.core;

/*
 * Which of a few stripes of a shared structure the calling thread uses, so that threads on different cores mostly
 * write to different cache lines (LocalGates' spare gates, DeadlineTimer's deferred stacks, OwnerIds' sequences).
 * A thread always gets the same stripe; two threads may share one, which the structures allow (each stripe is an
 * atomic slot of its own): striping only spreads the writes.
 */
final class ThreadStripes {
    /** 16 compressed references, or 8 longs or wide references, per 64-byte line: stripes this far apart share none. */
    static final int SPACING = 16;

    private ThreadStripes() {}

    /** The caller's stripe among {@code stripes} (a power of two), times SPACING: an index into a spaced array. */
    @SuppressWarnings("deprecation") // Thread.threadId() is JDK 19+; getId() is the same number
    static int index(int stripes) {
        return ((int) Thread.currentThread().getId() & (stripes - 1)) * SPACING;
    }
}

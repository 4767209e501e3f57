package io.latchkey.tck;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Watches a read-write section: {@link #enterRead}/{@link #enterWrite} count who is inside and record a violation
 * when a writer meets anyone or a reader meets a writer; {@link #mostReaders()} shows that readers really shared.
 * One atomic word holds both counts, so every check sees one consistent state.
 */
public final class ReadWriteRegister {
    private static final int WRITER = 1 << 16; // readers in the low 16 bits, writers above

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger violations = new AtomicInteger();
    private final AtomicInteger mostReaders = new AtomicInteger();
    private final AtomicReference<String> first = new AtomicReference<>();

    /**
     * A reader enters; a violation if a writer is inside.
     *
     * @param who the reader, named in the violation
     */
    public void enterRead(String who) {
        int now = inside.addAndGet(1);
        mostReaders.accumulateAndGet(now & (WRITER - 1), Math::max);
        if (now >= WRITER) {
            violation(who + " read while a writer was inside");
        }
    }

    /** A reader leaves. */
    public void exitRead() {
        inside.addAndGet(-1);
    }

    /**
     * A writer enters; a violation if anyone else is inside.
     *
     * @param who the writer, named in the violation
     */
    public void enterWrite(String who) {
        int now = inside.addAndGet(WRITER);
        if (now != WRITER) {
            violation(who + " wrote while " + (now / WRITER - 1) + " other writer(s) and " + (now & (WRITER - 1))
                    + " reader(s) were inside");
        }
    }

    /** A writer leaves. */
    public void exitWrite() {
        inside.addAndGet(-WRITER);
    }

    private void violation(String what) {
        violations.incrementAndGet();
        first.compareAndSet(null, what);
    }

    /**
     * How many times a writer met anyone, or a reader met a writer.
     *
     * @return the violations
     */
    public int violations() {
        return violations.get();
    }

    /**
     * The first violation.
     *
     * @return its description, or {@code null} if none
     */
    public String firstViolation() {
        return first.get();
    }

    /**
     * The most readers ever inside at once.
     *
     * @return the most readers inside at once
     */
    public int mostReaders() {
        return mostReaders.get();
    }
}

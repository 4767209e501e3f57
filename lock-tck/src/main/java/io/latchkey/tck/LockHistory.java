package io.latchkey.tck;

import io.latchkey.LockHandle;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/*
 * Records every grant and release a test makes and checks the history afterwards:
 * - overlap: for each name, the guaranteed windows [acquire returned, min(release called, validity end)]
 *   of different grants must not intersect. Both ends are read from one JVM's monotonic clock, and both
 *   are conservative (a window starts after the store granted and ends before the store released), so a
 *   correct lock never produces an overlap, while a store that grants twice does;
 * - fencing: in order of grant, each token is strictly greater than every earlier token of the name.
 * Recording is lock-free (a concurrent queue) so the checker adds no ordering of its own to the test.
 */
/**
 * The history checker: records every grant and release of a test and finds overlapping validity windows and
 * fencing-token regressions.
 */
public final class LockHistory {
    private final ConcurrentLinkedQueue<Entry> entries = new ConcurrentLinkedQueue<>();

    /** One grant; call {@link #released()} just before releasing it. */
    public static final class Entry {
        final String name;
        final String owner;
        final long token;
        final long grantedNanos;
        final long validUntilNanos;
        volatile long releasedNanos = Long.MAX_VALUE;

        Entry(String name, String owner, long token, long grantedNanos, long validUntilNanos) {
            this.name = name;
            this.owner = owner;
            this.token = token;
            this.grantedNanos = grantedNanos;
            this.validUntilNanos = validUntilNanos;
        }

        /** Marks the end of the holder's use of the grant. */
        public void released() {
            releasedNanos = System.nanoTime();
        }

        long windowEnd() {
            return Math.min(releasedNanos, validUntilNanos);
        }

        @Override
        public String toString() {
            return "grant[" + name + " token " + token + " owner " + owner + "]";
        }
    }

    /**
     * Records a grant as soon as the handle is returned.
     *
     * @param h the handle just returned by an acquisition
     * @return the entry, to record its release on
     */
    public Entry granted(LockHandle h) {
        long now = System.nanoTime();
        long remaining = h.remaining().toNanos();
        // session-bound grants may report an unbounded validity: saturate instead of overflowing
        long validUntil = remaining > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + remaining;
        Entry e = new Entry(h.name(), h.owner(), h.fencingToken(), now, validUntil);
        entries.add(e);
        return e;
    }

    /**
     * Every violation found: overlaps of validity windows and token regressions. Empty if the history is linearizable.
     *
     * @return the violations, each a readable sentence
     */
    public List<String> violations() {
        Map<String, List<Entry>> byName = new HashMap<>();
        for (Entry e : entries) {
            byName.computeIfAbsent(e.name, k -> new ArrayList<>()).add(e);
        }
        List<String> out = new ArrayList<>();
        for (List<Entry> list : byName.values()) {
            list.sort(Comparator.comparingLong(e -> e.grantedNanos));
            Entry widest = null;
            long maxToken = Long.MIN_VALUE;
            Entry maxTokenEntry = null;
            for (Entry e : list) {
                if (widest != null && e.grantedNanos < widest.windowEnd()) {
                    out.add("overlap: " + e + " was granted " + (widest.windowEnd() - e.grantedNanos) / 1000
                            + " us before " + widest + " ended");
                }
                if (widest == null || e.windowEnd() > widest.windowEnd()) {
                    widest = e;
                }
                if (e.token <= maxToken) {
                    out.add("token regression: " + e + " was granted after " + maxTokenEntry);
                } else {
                    maxToken = e.token;
                    maxTokenEntry = e;
                }
            }
        }
        return out;
    }

    /**
     * How many grants were recorded.
     *
     * @return the number of grants
     */
    public int size() {
        return entries.size();
    }
}

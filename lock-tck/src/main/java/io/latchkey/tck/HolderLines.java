package io.latchkey.tck;

import java.util.List;
import java.util.stream.Collectors;

/** What a {@link LockHolderProcess} printed, parsed: its grant, its guarded writes, when it saw its loss. */
final class HolderLines {
    /** One guarded write: the token it was fenced with, when (CLOCK_MONOTONIC), and the validity it had left. */
    record Write(long token, long nanos, long remainingMillis, long wallMillis) {}

    private HolderLines() {}

    static long heldToken(TckProcess child, java.time.Duration within) {
        return Long.parseLong(child.awaitLine("HELD ", within).split(" ")[1]);
    }

    static List<Write> writes(TckProcess child) {
        return child.lines("WRITE ").stream()
                .map(l -> l.split(" "))
                .map(f -> new Write(
                        Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])))
                .collect(Collectors.toList());
    }

    /** The CLOCK_MONOTONIC time at which the child first found its handle invalid. */
    static long invalidAt(TckProcess child, java.time.Duration within) {
        return Long.parseLong(child.awaitLine("INVALID ", within).split(" ")[1]);
    }

    /** The loss the child's handle reported, and when: {reason, nanos}. */
    static String[] loss(TckProcess child, java.time.Duration within) {
        String line;
        try {
            line = child.awaitLine("LOST ", within);
        } catch (AssertionError notTold) {
            throw new AssertionError(
                    "the holder in the child JVM was not told of its loss (LockHandle.onLost) within " + within.toMillis()
                            + " ms; its threads:\n" + child.threadDump(),
                    notTold);
        }
        String[] f = line.split(" ");
        return new String[] {f[1], f[2]};
    }
}

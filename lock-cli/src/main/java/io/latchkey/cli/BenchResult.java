package io.latchkey.cli;

import java.util.Arrays;

/**
 * What one backend achieved in {@code bench}. Immutable.
 *
 * @param label     the backend's label
 * @param threads   contending threads (one client each)
 * @param seconds   measured time
 * @param cycles    acquire + release cycles completed
 * @param handoffs  grants that went to a different client than the previous grant
 * @param p50Nanos  median time to acquire (waiting included)
 * @param p99Nanos  99th percentile time to acquire
 * @param timeouts  acquisitions that gave up after the per-attempt wait
 * @param errors    store errors
 * @param overlaps  grants made while another was still held: must be 0 (exclusion)
 * @param failure   why the backend could not be measured at all, else null
 */
record BenchResult(
        String label,
        int threads,
        double seconds,
        long cycles,
        long handoffs,
        long p50Nanos,
        long p99Nanos,
        long timeouts,
        long errors,
        long overlaps,
        String failure) {

    static BenchResult failed(String label, int threads, String why) {
        return new BenchResult(label, threads, 0, 0, 0, 0, 0, 0, 0, 0, why);
    }

    double cyclesPerSecond() {
        return seconds > 0 ? cycles / seconds : 0;
    }

    double handoffPercent() {
        return cycles > 1 ? 100.0 * handoffs / (cycles - 1) : 0;
    }

    /** The q-quantile (0..1) of sorted samples, nearest-rank. */
    static long quantile(long[] sorted, int count, double q) {
        if (count == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(q * count);
        return sorted[Math.max(0, Math.min(count - 1, rank - 1))];
    }

    static long[] sorted(long[] samples, int count) {
        long[] copy = Arrays.copyOf(samples, count);
        Arrays.sort(copy);
        return copy;
    }
}

package io.latchkey;

import java.time.Duration;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The pauses between a waiter's attempts on the store, as an iterator of delays: one fresh iterator per
 * acquisition. When the iterator runs out, the acquisition gives up with {@link LockTimeoutException}
 * even if wait time remains.
 *
 * <p>On a backend with {@link Capability#NATIVE_WAIT} a pause ends early when the store reports a release,
 * so the delay is only the fallback poll interval (the most a lost notification can cost). A pause is
 * also cut short when the store says the holder's lease ends sooner, and never exceeds the time left.
 *
 * <p>Any {@code Iterator<Duration>} supplier is a strategy: {@code () -> List.of(ofMillis(5), ofMillis(50)).iterator()}
 * tries three times. Delays must be zero or positive.
 */
@FunctionalInterface
public interface RetryStrategy {

    /**
     * A new, independent sequence of delays for one acquisition.
     *
     * @return the delays to pause between attempts, in order; may be infinite
     */
    Iterator<Duration> delays();

    /**
     * The same delay forever.
     *
     * @param delay the pause between attempts, positive
     * @return the strategy
     */
    static RetryStrategy fixed(Duration delay) {
        Durations.requirePositive(delay, "retry delay");
        return () -> new Iterator<>() {
            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Duration next() {
                return delay;
            }
        };
    }

    /**
     * Exponential backoff with "equal jitter": the n-th delay is uniformly random in [d/2, d] where
     * d = min(max, initial × 2ⁿ). Jitter keeps waiters from different processes from polling in step.
     *
     * @param initial the first delay's upper bound, positive
     * @param max the largest delay, at least {@code initial}
     * @return the strategy
     */
    static RetryStrategy exponential(Duration initial, Duration max) {
        Durations.requirePositive(initial, "initial retry delay");
        Durations.requirePositive(max, "maximum retry delay");
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException(
                    "maximum retry delay must be at least the initial delay (" + initial + "), was " + max);
        }
        long initialNanos = initial.toNanos();
        long maxNanos = max.toNanos();
        return () -> new Iterator<>() {
            private long ceiling = initialNanos;

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Duration next() {
                long d = ceiling;
                ceiling = ceiling > maxNanos / 2 ? maxNanos : Math.min(maxNanos, ceiling * 2);
                long half = d / 2;
                return Duration.ofNanos(half + ThreadLocalRandom.current().nextLong(d - half + 1));
            }
        };
    }

    /**
     * The default: exponential from 10 ms up to 250 ms, with jitter.
     *
     * @return the default strategy
     */
    static RetryStrategy defaultStrategy() {
        return DefaultHolder.DEFAULT;
    }

    /**
     * Never retries: one attempt, then {@link LockTimeoutException} if the lock was busy.
     *
     * @return the strategy with no retries
     */
    static RetryStrategy none() {
        return () -> new Iterator<>() {
            @Override
            public boolean hasNext() {
                return false;
            }

            @Override
            public Duration next() {
                throw new NoSuchElementException();
            }
        };
    }

    /** Holder of the shared default instance (interfaces cannot have private static fields). */
    final class DefaultHolder {
        private static final RetryStrategy DEFAULT = exponential(Duration.ofMillis(10), Duration.ofMillis(250));

        private DefaultHolder() {}
    }
}

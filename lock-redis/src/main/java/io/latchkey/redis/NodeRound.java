package io.latchkey.redis;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;

/*
 * One parallel round: the same call sent to every node at once, answered by a snapshot of the replies
 * as soon as the caller has enough of them (a quorum of grants, say), all nodes answered, or the
 * deadline passed. A node that has not answered by then counts as failed for this round; its call keeps
 * running on the executor and its late reply is dropped.
 *
 * Concurrency design. Every node's call runs on the shared executor, so that a frozen node never holds
 * up the caller once a quorum has answered. Replies land in arrays guarded by one ReentrantLock, whose
 * condition the caller awaits; the snapshot copies them under the lock, so late replies never change what
 * the caller decided on. With one node there is no executor and no locking at all.
 */
final class NodeRound<T> {
    private final int size;
    private final Object[] values;
    private final RuntimeException[] errors;
    private final boolean[] answered;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private int answeredCount;

    private NodeRound(int size) {
        this.size = size;
        this.values = new Object[size];
        this.errors = new RuntimeException[size];
        this.answered = new boolean[size];
    }

    /** What the caller saw: per node a value, an error, or neither (no answer in time). */
    static final class Replies<T> {
        private final Object[] values;
        private final RuntimeException[] errors;
        private final boolean[] answered;

        private Replies(Object[] values, RuntimeException[] errors, boolean[] answered) {
            this.values = values;
            this.errors = errors;
            this.answered = answered;
        }

        private static final boolean[] ANSWERED_ONE = {true};
        private static final RuntimeException[] NO_ERROR_ONE = new RuntimeException[1];

        /** The reply of a round on one node: its value or its error (the arrays are never written after this). */
        static <T> Replies<T> one(Object value, RuntimeException error) {
            return new Replies<>(
                    new Object[] {value}, error == null ? NO_ERROR_ONE : new RuntimeException[] {error}, ANSWERED_ONE);
        }

        /** Replies gathered elsewhere (PipelinedRound); the arrays become the snapshot's. */
        static <T> Replies<T> of(Object[] values, RuntimeException[] errors, boolean[] answered) {
            return new Replies<>(values, errors, answered);
        }

        int size() {
            return values.length;
        }

        @SuppressWarnings("unchecked")
        T value(int i) {
            return (T) values[i];
        }

        boolean ok(int i) {
            return answered[i] && errors[i] == null;
        }

        /** The error, or for a node that did not answer in time, null (see {@link #answered}). */
        RuntimeException error(int i) {
            return errors[i];
        }

        boolean answered(int i) {
            return answered[i];
        }

        long count(Predicate<T> p) {
            long n = 0;
            for (int i = 0; i < values.length; i++) {
                if (ok(i) && p.test(value(i))) {
                    n++;
                }
            }
            return n;
        }

        int failures() {
            int n = 0;
            for (int i = 0; i < values.length; i++) {
                if (!ok(i)) {
                    n++;
                }
            }
            return n;
        }
    }

    /**
     * Sends {@code call} to every node and returns once {@code enough} holds, all have answered, or the
     * deadline (System.nanoTime) passed. An interrupt ends the wait early and stays set.
     */
    static <T> Replies<T> run(
            List<RedisNode> nodes,
            Executor executor,
            Function<RedisNode, T> call,
            long deadlineNanos,
            Predicate<Replies<T>> enough) {
        int n = nodes.size();
        if (n == 1) {
            try {
                return Replies.one(call.apply(nodes.get(0)), null);
            } catch (RuntimeException e) {
                return Replies.one(null, e);
            }
        }
        NodeRound<T> round = new NodeRound<>(n);
        for (int i = 0; i < n; i++) {
            int index = i;
            RedisNode node = nodes.get(i);
            try {
                executor.execute(() -> round.complete(index, node, call));
            } catch (RejectedExecutionException closing) {
                round.put(index, null, new IllegalStateException("the backend is closed"));
            }
        }
        return round.await(deadlineNanos, enough);
    }

    private void complete(int index, RedisNode node, Function<RedisNode, T> call) {
        T value = null;
        RuntimeException error = null;
        try {
            value = call.apply(node);
        } catch (RuntimeException e) {
            error = e;
        }
        put(index, value, error);
    }

    private void put(int index, Object value, RuntimeException error) {
        lock.lock();
        try {
            values[index] = value;
            errors[index] = error;
            answered[index] = true;
            answeredCount++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private Replies<T> await(long deadlineNanos, Predicate<Replies<T>> enough) {
        lock.lock();
        try {
            for (; ; ) {
                Replies<T> snapshot = snapshot();
                if (answeredCount == size || enough.test(snapshot)) {
                    return snapshot;
                }
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return snapshot;
                }
                try {
                    changed.awaitNanos(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return snapshot();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private Replies<T> snapshot() {
        return new Replies<>(Arrays.copyOf(values, size), Arrays.copyOf(errors, size), Arrays.copyOf(answered, size));
    }

    static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}

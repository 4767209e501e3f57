package io.latchkey.cli;

import io.latchkey.BackendUnavailableException;
import io.latchkey.DistributedLock;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockException;
import io.latchkey.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * Measures one backend: {@code threads} threads, each with its own client (as separate processes would
 * have), contend for one lock name for {@code duration}; each cycle is acquire (waiting with the default
 * options, as an application would) + release. Records the time to acquire, counts hand-offs between
 * clients, and checks exclusion with a holder counter that must never exceed one.
 *
 * <p>Concurrency: worker threads keep private sample arrays (no sharing on the hot path except the
 * holder counter and the last-holder marker, both atomics); the caller's thread reports progress and joins.
 */
final class BenchRunner {
    private static final Duration ATTEMPT_WAIT = Duration.ofSeconds(5);

    private BenchRunner() {}

    static BenchResult run(
            BenchTarget target,
            Map<String, String> settings,
            int threads,
            Duration duration,
            LongConsumer progressMillis)
            throws InterruptedException {
        List<LockClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < threads; i++) {
                clients.add(Latchkey.connect(target.uri, settings));
            }
            String name = "latchkey-bench";
            AtomicInteger holders = new AtomicInteger();
            AtomicInteger lastHolder = new AtomicInteger(-1);
            AtomicLong handoffs = new AtomicLong();
            AtomicLong overlaps = new AtomicLong();
            AtomicLong timeouts = new AtomicLong();
            AtomicLong errors = new AtomicLong();
            AtomicReference<String> firstError = new AtomicReference<>();
            Worker[] workers = new Worker[threads];
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> running = new ArrayList<>();
            long[] deadline = new long[1];
            for (int t = 0; t < threads; t++) {
                int me = t;
                DistributedLock lock = clients.get(t).lock(name);
                Worker w = new Worker();
                workers[t] = w;
                Thread thread = new Thread(
                        () -> {
                            try {
                                start.await();
                                while (System.nanoTime() - deadline[0] < 0) {
                                    long t0 = System.nanoTime();
                                    Optional<LockHandle> h;
                                    try {
                                        h = lock.tryAcquire(ATTEMPT_WAIT);
                                    } catch (BackendUnavailableException e) {
                                        errors.incrementAndGet();
                                        firstError.compareAndSet(null, e.getMessage());
                                        continue;
                                    }
                                    long t1 = System.nanoTime();
                                    if (h.isEmpty()) {
                                        timeouts.incrementAndGet();
                                        continue;
                                    }
                                    try (LockHandle handle = h.get()) {
                                        if (holders.incrementAndGet() != 1) {
                                            overlaps.incrementAndGet();
                                        }
                                        int previous = lastHolder.getAndSet(me);
                                        if (previous != me && previous != -1) {
                                            handoffs.incrementAndGet();
                                        }
                                        holders.decrementAndGet();
                                        handle.release();
                                    }
                                    w.add(t1 - t0);
                                }
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            } catch (LockException | IllegalStateException e) {
                                errors.incrementAndGet();
                                firstError.compareAndSet(null, e.getMessage());
                            }
                        },
                        "latchkey-bench-" + t);
                thread.start();
                running.add(thread);
            }
            long begin = System.nanoTime();
            deadline[0] = begin + duration.toNanos();
            start.countDown();
            for (Thread thread : running) {
                while (thread.isAlive()) {
                    thread.join(200);
                    progressMillis.accept(Math.min(duration.toMillis(), (System.nanoTime() - begin) / 1_000_000));
                }
            }
            double seconds = (System.nanoTime() - begin) / 1e9;
            long cycles = Arrays.stream(workers).mapToLong(w -> w.count).sum();
            long[] all = new long[(int) Math.min(Integer.MAX_VALUE - 8, cycles)];
            int n = 0;
            for (Worker w : workers) {
                int take = Math.min(w.count, all.length - n);
                System.arraycopy(w.samples, 0, all, n, take);
                n += take;
            }
            long[] sorted = BenchResult.sorted(all, n);
            if (cycles == 0 && firstError.get() != null) {
                return BenchResult.failed(target.label, threads, firstError.get());
            }
            return new BenchResult(
                    target.label,
                    threads,
                    seconds,
                    cycles,
                    handoffs.get(),
                    BenchResult.quantile(sorted, n, 0.50),
                    BenchResult.quantile(sorted, n, 0.99),
                    timeouts.get(),
                    errors.get(),
                    overlaps.get(),
                    null);
        } finally {
            clients.forEach(LockClient::close);
        }
    }

    /** One thread's samples; written by that thread only, read after it has been joined. */
    private static final class Worker {
        long[] samples = new long[1024];
        int count;

        void add(long nanos) {
            if (count == samples.length) {
                samples = Arrays.copyOf(samples, samples.length * 2);
            }
            samples[count++] = nanos;
        }
    }
}

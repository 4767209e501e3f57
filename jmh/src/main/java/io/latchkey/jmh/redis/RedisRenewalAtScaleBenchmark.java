package io.latchkey.jmh.redis;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.redis.RedisLockBackend;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.spi.ForwardingLockBackend;
import io.latchkey.spi.Grant;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import redis.clients.jedis.Jedis;

/**
 * What holding many locks costs on one redis-server: a client holds {@code heldLocks} locks (lease 3 s, renewed
 * every second) while the measured thread acquires and releases another lock; the score is that cycle's latency
 * (SampleTime: p50, p99, p99.9). Each iteration also prints the renewal's cost per second: script calls the server
 * received for renewals, CPU of the client's renewal and timer threads, and the server's CPU; and the renewal workers'
 * CPU per lock renewed (the grants the backend was asked to renew, counted by a forwarding backend around it), the
 * figure that does not depend on the fixed costs the ratio between two sizes also measures, and, batched, how much of
 * it the workers spent inside the backend's renewAll (the rest is the core's). {@code batched=false} is
 * the same client behind a forwarding backend that renews every lock on its own (LockBackend.renewAll not offered):
 * the comparison in one run.
 *
 * <pre>java -jar jmh/target/benchmarks.jar 'jmh.redis.RedisRenewalAtScale'</pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
// 4 x 5 s: with 1 x 4 s the core's renewal path (RenewalBatcher.drain, RenewalSlot.close, DeadlineTimer.arm) was
// compiled by C2 only 11-13 s into the run at 10,000 held locks, inside the measurement (lock-redis/README.md, session 33)
@Warmup(iterations = 4, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(1)
@State(Scope.Benchmark)
public class RedisRenewalAtScaleBenchmark {
    private static final LockOptions HELD = LockOptions.builder()
            .lease(Duration.ofSeconds(3))
            .renewInterval(Duration.ofSeconds(1))
            .build();

    @Param({"1", "100", "1000", "10000"})
    public int heldLocks;

    @Param({"true", "false"})
    public boolean batched;

    RedisTargets targets;
    LockClient client;
    final List<LockHandle> held = new ArrayList<>();
    final AtomicLong cycles = new AtomicLong();
    final AtomicLong renewed = new AtomicLong();
    final AtomicLong backendCpuNanos = new AtomicLong();
    io.latchkey.DistributedLock measured;

    private long iterationStart;
    private long evalshaAtStart;
    private long cyclesAtStart;
    private double serverCpuAtStart;
    private long clientCpuAtStart;
    private long timerCpuAtStart;
    private long renewedAtStart;
    private long backendCpuAtStart;

    @Setup(Level.Trial)
    public void open() {
        targets = new RedisTargets("single");
        RedisLockBackend backend = RedisLockBackend.connect(targets.latchkeyUri());
        client = Latchkey.client(new CountingRenewals(backend, batched, renewed, backendCpuNanos));
        for (int i = 0; i < heldLocks; i++) {
            held.add(client.lock("bench-held-" + i, HELD).tryAcquire().orElseThrow());
        }
        measured = client.lock("bench-renewal-cycle");
    }

    @Setup(Level.Iteration)
    public void startCounting() {
        iterationStart = System.nanoTime();
        evalshaAtStart = RedisServers.evalshaCalls(targets.servers.get(0));
        cyclesAtStart = cycles.get();
        serverCpuAtStart = serverCpuSeconds();
        clientCpuAtStart = threadsCpuNanos("latchkey-renewal") + threadsCpuNanos("latchkey-watchdog");
        timerCpuAtStart = threadsCpuNanos("latchkey-watchdog");
        renewedAtStart = renewed.get();
        backendCpuAtStart = backendCpuNanos.get();
    }

    @TearDown(Level.Iteration)
    public void report() {
        double seconds = (System.nanoTime() - iterationStart) / 1e9;
        long renewalCalls = RedisServers.evalshaCalls(targets.servers.get(0))
                - evalshaAtStart
                - 2 * (cycles.get() - cyclesAtStart);
        double serverCpuMs = (serverCpuSeconds() - serverCpuAtStart) * 1000;
        long timerCpu = threadsCpuNanos("latchkey-watchdog");
        double clientCpuMs = (threadsCpuNanos("latchkey-renewal") + timerCpu - clientCpuAtStart) / 1e6;
        double timerCpuMs = (timerCpu - timerCpuAtStart) / 1e6;
        long renewedLocks = renewed.get() - renewedAtStart;
        double workersCpuUs = (clientCpuMs - timerCpuMs) * 1000;
        double backendCpuUs = (backendCpuNanos.get() - backendCpuAtStart) / 1e3;
        long lost = held.stream().filter(h -> !h.isValid()).count();
        System.out.printf(
                Locale.ROOT,
                "%nRENEWAL heldLocks=%d batched=%s: renewal script calls %.0f/s, client renewal+timer CPU %.1f ms/s"
                        + " (timer %.1f), redis-server CPU %.1f ms/s, lost %d of %d; locks renewed %.0f/s, renewal"
                        + " workers %s µs of CPU per lock renewed, %s of them in the backend's renewAll%n",
                heldLocks,
                batched,
                renewalCalls / seconds,
                clientCpuMs / seconds,
                timerCpuMs / seconds,
                serverCpuMs / seconds,
                lost,
                held.size(),
                renewedLocks / seconds,
                renewedLocks == 0 ? "-" : String.format(Locale.ROOT, "%.2f", workersCpuUs / renewedLocks),
                renewedLocks == 0 || !batched ? "-" : String.format(Locale.ROOT, "%.2f", backendCpuUs / renewedLocks));
    }

    @TearDown(Level.Trial)
    public void close() {
        long lost = held.stream().filter(h -> !h.isValid()).count();
        if (lost > 0) {
            throw new IllegalStateException(lost + " of " + held.size() + " held locks were lost");
        }
        client.close();
        targets.close();
    }

    @Benchmark
    public void latchkeyAcquireAndReleaseWhileRenewing() throws InterruptedException {
        try (LockHandle h = measured.acquire(Duration.ofSeconds(10))) {
            cycles.incrementAndGet();
        }
    }


    private double serverCpuSeconds() {
        double total = 0;
        try (Jedis j = targets.pools.get(0).getResource()) {
            for (String line : j.info("cpu").lines().toList()) {
                if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                    total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        }
        return total;
    }

    /** CPU of the client's threads whose names start with {@code prefix}: renewal workers or the timer. */
    private static long threadsCpuNanos(String prefix) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith(prefix)) {
                long cpu = mx.getThreadCpuTime(t.getThreadId());
                total += Math.max(0, cpu);
            }
        }
        return total;
    }

    /**
     * The backend as the client sees it, counting the grants it is asked to renew. Batched, it forwards renewAll and
     * its batch size (each batch counted once, by its size), and counts the CPU its calling thread spends inside the
     * backend's renewAll: the rest of the renewal workers' CPU is the core's. Reading a thread's CPU clock is a system
     * call, so it is read twice per batch, never per lock. Otherwise it offers no batch, so that
     * the core renews each lock on its own.
     */
    static final class CountingRenewals extends ForwardingLockBackend {
        private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
        private final LockBackend backend;
        private final boolean batched;
        private final AtomicLong renewed;
        private final AtomicLong backendCpuNanos;

        CountingRenewals(LockBackend backend, boolean batched, AtomicLong renewed, AtomicLong backendCpuNanos) {
            super(backend);
            this.backend = backend;
            this.batched = batched;
            this.renewed = renewed;
            this.backendCpuNanos = backendCpuNanos;
        }

        @Override
        public RenewResult renew(Grant grant, Duration lease) {
            renewed.incrementAndGet();
            return backend.renew(grant, lease);
        }

        @Override
        public int renewalBatchSize() {
            return batched ? backend.renewalBatchSize() : 1;
        }

        @Override
        public List<@Nullable RenewResult> renewAll(List<Grant> batch, List<Duration> leases) {
            renewed.addAndGet(batch.size());
            long cpu = CPU.getCurrentThreadCpuTime();
            try {
                return backend.renewAll(batch, leases);
            } finally {
                backendCpuNanos.addAndGet(CPU.getCurrentThreadCpuTime() - cpu);
            }
        }
    }
}

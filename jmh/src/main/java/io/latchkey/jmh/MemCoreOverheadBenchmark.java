package io.latchkey.jmh;

import io.latchkey.DistributedLock;
import io.latchkey.Fairness;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.mem.MemoryStore;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.Grant;
import io.latchkey.spi.LockBackend;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the core costs: one uncontended acquire + release on {@code mem:}, through the full API (local gate,
 * owner id, watchdog timer, handle) versus the same two store calls made directly on the SPI
 * ({@code rawSpi}). The difference is the core's overhead per cycle; run with {@code -prof gc} for the
 * allocation per cycle ({@code gc.alloc.rate.norm}).
 *
 * <pre>java -jar jmh/target/benchmarks.jar MemCoreOverhead -prof gc</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class MemCoreOverheadBenchmark {
    private static final AtomicInteger NAMES = new AtomicInteger();

    MemoryStore store;
    LockClient client;
    LockBackend rawBackend;

    @Setup(Level.Trial)
    public void open() {
        store = new MemoryStore();
        client = Latchkey.client(store.newBackend());
        rawBackend = store.newBackend();
    }

    @TearDown(Level.Trial)
    public void close() {
        client.close();
        rawBackend.close();
    }

    /** Each benchmark thread works on its own lock name (distinct names: no contention by design). */
    @State(Scope.Thread)
    public static class PerThread {
        DistributedLock renewing;
        DistributedLock plain;
        AcquireRequest request;

        @Setup(Level.Trial)
        public void open(MemCoreOverheadBenchmark b) {
            String name = "bench-" + NAMES.incrementAndGet();
            renewing = b.client.lock(name + "/renewing");
            plain = b.client.lock(
                    name + "/plain", LockOptions.builder().autoRenew(false).build());
            request =
                    new AcquireRequest(name + "/raw", "raw-owner-" + name, Duration.ofSeconds(30), Fairness.PREFERRED);
        }
    }

    /** Full API, default options (auto-renew on: a watchdog timer is armed and cancelled each cycle). */
    @Benchmark
    @Threads(1)
    public long core_defaults_1thread(PerThread t) throws InterruptedException {
        return cycle(t.renewing);
    }

    @Benchmark
    @Threads(8)
    public long core_defaults_8threads(PerThread t) throws InterruptedException {
        return cycle(t.renewing);
    }

    /** Full API without auto-renew (the loss deadline timer is still armed). */
    @Benchmark
    @Threads(1)
    public long core_noRenew_1thread(PerThread t) throws InterruptedException {
        return cycle(t.plain);
    }

    /** Baseline: the same two store calls made directly on the SPI, no core. */
    @Benchmark
    @Threads(1)
    public long rawSpi_1thread(PerThread t) {
        return rawCycle(t);
    }

    @Benchmark
    @Threads(8)
    public long rawSpi_8threads(PerThread t) {
        return rawCycle(t);
    }

    private static long cycle(DistributedLock lock) throws InterruptedException {
        LockHandle h = lock.acquire(Duration.ofSeconds(10));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    private long rawCycle(PerThread t) {
        Grant g = (Grant) rawBackend.tryAcquire(t.request);
        rawBackend.release(g);
        return g.fencingToken();
    }
}

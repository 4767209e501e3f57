package io.latchkey.jmh.redis;

import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

/**
 * Semaphore acquire + release of one permit, 8 threads over 2 clients (as if 2 processes), one semaphore of 4
 * permits on one Redis node, so half the threads wait at any moment. Latchkey (every grant leased, renewed and
 * fenced; a release wakes one waiter), Redisson's RSemaphore (no lease: a dead holder's permits never come back)
 * and RPermitExpirableSemaphore (leased permits, the closer equivalent) in the same run. Throughput is permits
 * cycled per ms over all threads; SampleTime gives the latency percentiles.
 *
 * <pre>java -jar jmh/target/benchmarks.jar 'jmh.redis.RedisSemaphore'</pre>
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@Threads(8)
@State(Scope.Benchmark)
public class RedisSemaphoreBenchmark {
    private static final int CLIENTS = 2;
    private static final int PERMITS = 4;
    private static final AtomicInteger THREADS = new AtomicInteger();

    RedisTargets targets;
    final List<LockClient> latchkey = new ArrayList<>();
    final List<RedissonClient> redisson = new ArrayList<>();
    String name;

    @Setup(Level.Trial)
    public void open() {
        targets = new RedisTargets("single");
        name = "bench-semaphore-" + System.nanoTime();
        for (int i = 0; i < CLIENTS; i++) {
            latchkey.add(targets.newLatchkeyClient());
            redisson.add(targets.newRedissonClients().get(0));
        }
        redisson.get(0).getSemaphore(name + "/redisson").trySetPermits(PERMITS);
        redisson.get(0)
                .getPermitExpirableSemaphore(name + "/redisson-expirable")
                .trySetPermits(PERMITS);
    }

    @TearDown(Level.Trial)
    public void close() {
        latchkey.forEach(LockClient::close);
        targets.close();
    }

    /** Each thread's view of the one shared semaphore, through its client. */
    @State(Scope.Thread)
    public static class PerThread {
        DistributedSemaphore semaphore;
        RSemaphore rsemaphore;
        RPermitExpirableSemaphore expirable;

        @Setup(Level.Trial)
        public void open(RedisSemaphoreBenchmark b) {
            int t = THREADS.incrementAndGet();
            semaphore = b.latchkey.get(t % CLIENTS).semaphore(b.name + "/latchkey", PERMITS);
            rsemaphore = b.redisson.get(t % CLIENTS).getSemaphore(b.name + "/redisson");
            expirable = b.redisson.get(t % CLIENTS).getPermitExpirableSemaphore(b.name + "/redisson-expirable");
        }
    }

    @Benchmark
    public long latchkey(PerThread t) throws InterruptedException {
        LockHandle h = t.semaphore.acquire(1, Duration.ofSeconds(60));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    @Benchmark
    public boolean redissonSemaphore(PerThread t) throws InterruptedException {
        t.rsemaphore.acquire();
        t.rsemaphore.release();
        return true;
    }

    @Benchmark
    public String redissonPermitExpirable(PerThread t) throws InterruptedException {
        String id = t.expirable.acquire(30, TimeUnit.SECONDS);
        t.expirable.release(id);
        return id;
    }
}

package io.latchkey.jmh.redis;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * One uncontended acquire + release per operation, each thread on its own lock name, on a real
 * redis-server ({@code single}) or three ({@code redlock3}): Latchkey (default options: auto-renewal on),
 * Redisson (tryLock with its watchdog, RedissonRedLock for redlock3) and the raw Jedis baseline
 * (SET NX PX + EVALSHA compare-and-delete) in the same run.
 *
 * <pre>java -jar jmh/target/benchmarks.jar 'jmh.redis.RedisUncontended'</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
// 10 x 5 s: after 2 x 2 s the C2 compiler still took 31-34 % of the JVM's CPU while Redisson was measured, 2.7-3.9 %
// after 10 x 5 s, where Redisson's 8-thread score was half again higher at the point estimate (jmh/README.md,
// "Warm-up", session 34)
@Warmup(iterations = 10, time = 5)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@State(Scope.Benchmark)
public class RedisUncontendedBenchmark {
    private static final AtomicInteger NAMES = new AtomicInteger();

    @Param({"single", "redlock3"})
    public String target;

    RedisTargets targets;
    LockClient latchkey;
    List<RedissonClient> redisson;

    @Setup(Level.Trial)
    public void open() {
        targets = new RedisTargets(target);
        latchkey = targets.newLatchkeyClient();
        redisson = targets.newRedissonClients();
    }

    @TearDown(Level.Trial)
    public void close() {
        latchkey.close();
        targets.close();
    }

    /** Each thread's own names. */
    @State(Scope.Thread)
    public static class PerThread {
        DistributedLock lock;
        RLock rlock;
        byte[] rawKey;
        byte[] rawOwner;

        @Setup(Level.Trial)
        public void open(RedisUncontendedBenchmark b) {
            String name = "bench-uncontended-" + NAMES.incrementAndGet();
            lock = b.latchkey.lock(name + "/latchkey");
            rlock = RedisTargets.redissonLock(b.redisson, name + "/redisson");
            rawKey = (name + "/raw").getBytes(StandardCharsets.UTF_8);
            rawOwner = ("owner-" + name).getBytes(StandardCharsets.UTF_8);
        }
    }

    @Benchmark
    @Threads(1)
    public long latchkey_1thread(PerThread t) throws InterruptedException {
        return latchkeyCycle(t);
    }

    @Benchmark
    @Threads(8)
    public long latchkey_8threads(PerThread t) throws InterruptedException {
        return latchkeyCycle(t);
    }

    @Benchmark
    @Threads(1)
    public boolean rawJedis_1thread(PerThread t) {
        return rawCycle(t);
    }

    @Benchmark
    @Threads(8)
    public boolean rawJedis_8threads(PerThread t) {
        return rawCycle(t);
    }

    @Benchmark
    @Threads(1)
    public boolean redisson_1thread(PerThread t) throws InterruptedException {
        return redissonCycle(t);
    }

    @Benchmark
    @Threads(8)
    public boolean redisson_8threads(PerThread t) throws InterruptedException {
        return redissonCycle(t);
    }

    private static long latchkeyCycle(PerThread t) throws InterruptedException {
        LockHandle h = t.lock.acquire(Duration.ofSeconds(10));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    private boolean rawCycle(PerThread t) {
        if (!targets.rawAcquire(t.rawKey, t.rawOwner, 30_000)) {
            throw new IllegalStateException("raw SET NX failed on an uncontended key");
        }
        targets.rawRelease(t.rawKey, t.rawOwner);
        return true;
    }

    private static boolean redissonCycle(PerThread t) throws InterruptedException {
        if (!t.rlock.tryLock(0, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("Redisson tryLock failed on an uncontended lock");
        }
        t.rlock.unlock();
        return true;
    }
}

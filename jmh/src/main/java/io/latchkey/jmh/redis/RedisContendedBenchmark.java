package io.latchkey.jmh.redis;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
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
 * Contended hand-off: 8 threads, spread over 2 clients (as if 2 processes), take turns on ONE lock name.
 * Throughput is the hand-off rate (ops/ms over all threads); SampleTime gives each acquire + release's
 * latency percentiles (p99). Latchkey (release wakes one waiter through the wake list), Redisson (pub/sub)
 * and raw Jedis (SET NX PX polled every 100 us, EVALSHA delete) in the same run.
 *
 * <pre>java -jar jmh/target/benchmarks.jar 'jmh.redis.RedisContended'</pre>
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
// 10 x 5 s: after 2 x 2 s the C2 compiler still took 39 % of the JVM's CPU while Redisson was measured (5.6-8.1 % for
// Latchkey), 2.3-4.7 % after 10 x 5 s (0.3-1.5 % for Latchkey) (jmh/README.md, "Warm-up", session 34)
@Warmup(iterations = 10, time = 5)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@Threads(8)
@State(Scope.Benchmark)
public class RedisContendedBenchmark {
    private static final int CLIENTS = 2;
    private static final AtomicInteger THREADS = new AtomicInteger();

    @Param({"single", "redlock3"})
    public String target;

    RedisTargets targets;
    final List<LockClient> latchkey = new ArrayList<>();
    final List<List<RedissonClient>> redisson = new ArrayList<>();
    String name;

    @Setup(Level.Trial)
    public void open() {
        targets = new RedisTargets(target);
        for (int i = 0; i < CLIENTS; i++) {
            latchkey.add(targets.newLatchkeyClient());
            redisson.add(targets.newRedissonClients());
        }
        name = "bench-contended-" + System.nanoTime();
    }

    @TearDown(Level.Trial)
    public void close() {
        latchkey.forEach(LockClient::close);
        targets.close();
    }

    /** Each thread's view of the one shared name, through its client. */
    @State(Scope.Thread)
    public static class PerThread {
        DistributedLock lock;
        RLock rlock;
        byte[] rawKey;
        byte[] rawOwner;

        @Setup(Level.Trial)
        public void open(RedisContendedBenchmark b) {
            int t = THREADS.incrementAndGet();
            lock = b.latchkey.get(t % CLIENTS).lock(b.name + "/latchkey");
            rlock = RedisTargets.redissonLock(b.redisson.get(t % CLIENTS), b.name + "/redisson");
            rawKey = (b.name + "/raw").getBytes(StandardCharsets.UTF_8);
            rawOwner = ("owner-" + t).getBytes(StandardCharsets.UTF_8);
        }
    }

    @Benchmark
    public long latchkey(PerThread t) throws InterruptedException {
        LockHandle h = t.lock.acquire(Duration.ofSeconds(60));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    @Benchmark
    public boolean redisson(PerThread t) {
        t.rlock.lock();
        t.rlock.unlock();
        return true;
    }

    @Benchmark
    public boolean rawJedisPolling(PerThread t) {
        while (!targets.rawAcquire(t.rawKey, t.rawOwner, 30_000)) {
            LockSupport.parkNanos(100_000);
        }
        targets.rawRelease(t.rawKey, t.rawOwner);
        return true;
    }
}

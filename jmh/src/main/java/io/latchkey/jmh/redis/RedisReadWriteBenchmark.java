package io.latchkey.jmh.redis;

import io.latchkey.DistributedLock;
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
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Read-lock acquire + release on ONE read-write lock, all threads reading (readers share, so nobody waits for the
 * lock itself), spread over 2 clients (as if 2 processes), on one redis-server: Latchkey's read lock (leased,
 * renewed and fenced) against Redisson's RReadWriteLock read lock (watchdog on), at 1 and 8 threads, in one run.
 *
 * <pre>java -jar jmh/target/benchmarks.jar 'jmh.redis.RedisReadWrite'</pre>
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@State(Scope.Benchmark)
public class RedisReadWriteBenchmark {
    private static final int CLIENTS = 2;
    private static final AtomicInteger THREADS = new AtomicInteger();

    RedisTargets targets;
    final List<LockClient> latchkey = new ArrayList<>();
    final List<RedissonClient> redisson = new ArrayList<>();
    String name;

    @Setup(Level.Trial)
    public void open() {
        targets = new RedisTargets("single");
        name = "bench-rw-" + System.nanoTime();
        for (int i = 0; i < CLIENTS; i++) {
            latchkey.add(targets.newLatchkeyClient());
            redisson.add(targets.newRedissonClients().get(0));
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        latchkey.forEach(LockClient::close);
        targets.close();
    }

    /** Each thread's view of the one shared lock, through its client. */
    @State(Scope.Thread)
    public static class PerThread {
        DistributedLock read;
        RLock rread;

        @Setup(Level.Trial)
        public void open(RedisReadWriteBenchmark b) {
            int t = THREADS.incrementAndGet();
            read = b.latchkey
                    .get(t % CLIENTS)
                    .readWriteLock(b.name + "/latchkey")
                    .readLock();
            rread = b.redisson
                    .get(t % CLIENTS)
                    .getReadWriteLock(b.name + "/redisson")
                    .readLock();
        }
    }

    private static long latchkeyRead(PerThread t) throws InterruptedException {
        LockHandle h = t.read.acquire(Duration.ofSeconds(60));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    private static boolean redissonRead(PerThread t) {
        t.rread.lock();
        t.rread.unlock();
        return true;
    }

    @Benchmark
    @Threads(1)
    public long latchkeyRead_1thread(PerThread t) throws InterruptedException {
        return latchkeyRead(t);
    }

    @Benchmark
    @Threads(1)
    public boolean redissonRead_1thread(PerThread t) {
        return redissonRead(t);
    }

    @Benchmark
    @Threads(8)
    public long latchkeyRead_8threads(PerThread t) throws InterruptedException {
        return latchkeyRead(t);
    }

    @Benchmark
    @Threads(8)
    public boolean redissonRead_8threads(PerThread t) {
        return redissonRead(t);
    }
}

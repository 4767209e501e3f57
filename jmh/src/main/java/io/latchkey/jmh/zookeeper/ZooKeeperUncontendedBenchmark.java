package io.latchkey.jmh.zookeeper;

import io.latchkey.DistributedLock;
import io.latchkey.LockHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Uncontended acquire + release on ZooKeeper, each thread on its own lock name: Latchkey's fair
 * {@code acquire(wait)} (create, getChildren, delete) and {@code tryAcquire()}, Curator's
 * {@code InterProcessMutex} (the peer), and the raw baseline: create an ephemeral node + delete it (2 requests)
 * on a plain ZooKeeper handle. Run with {@code -t 1} and {@code -t 8}.
 *
 * <pre>java -jar benchmarks.jar zookeeper.ZooKeeperUncontended -t 1</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
// 5 x 5 s: after 2 x 2 s the C2 compiler took 26-28 % of the JVM's CPU during the measurement (the server runs in this
// JVM), for Latchkey and Curator alike; after 5 x 5 s, 0.9 % for Latchkey in one profiled run (jmh/README.md)
@Warmup(iterations = 5, time = 5)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class ZooKeeperUncontendedBenchmark {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final List<org.apache.zookeeper.data.ACL> OPEN = ZooDefs.Ids.OPEN_ACL_UNSAFE;

    ZooKeeperBench bench;

    @Setup(Level.Trial)
    public void open() throws Exception {
        bench = new ZooKeeperBench();
        bench.raw.create("/raw-baseline", new byte[0], OPEN, CreateMode.PERSISTENT);
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        bench.close();
    }

    /** Each thread's own name, so nothing contends. */
    @State(Scope.Thread)
    public static class PerThread {
        DistributedLock lock;
        InterProcessMutex mutex;
        String rawPath;

        @Setup(Level.Trial)
        public void open(ZooKeeperUncontendedBenchmark b) {
            String name = "bench-" + NAMES.incrementAndGet();
            lock = b.bench.latchkey.lock("uncontended/" + name);
            mutex = new InterProcessMutex(b.bench.curator, "/curator-bench/" + name);
            rawPath = "/raw-baseline/" + name;
        }
    }

    @Benchmark
    public long latchkeyAcquire(PerThread t) throws InterruptedException {
        LockHandle h = t.lock.acquire(Duration.ofSeconds(10));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    @Benchmark
    public long latchkeyTryAcquire(PerThread t) {
        LockHandle h = t.lock.tryAcquire().orElseThrow();
        long token = h.fencingToken();
        h.release();
        return token;
    }

    @Benchmark
    public boolean curatorInterProcessMutex(PerThread t) throws Exception {
        t.mutex.acquire();
        t.mutex.release();
        return true;
    }

    @Benchmark
    public String rawCreateEphemeralDelete(PerThread t, ZooKeeperUncontendedBenchmark b) throws Exception {
        String path = b.bench.raw.create(t.rawPath, new byte[0], OPEN, CreateMode.EPHEMERAL);
        b.bench.raw.delete(path, -1);
        return path;
    }
}

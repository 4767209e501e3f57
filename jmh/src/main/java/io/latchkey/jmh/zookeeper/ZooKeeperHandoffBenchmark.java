package io.latchkey.jmh.zookeeper;

import io.latchkey.DistributedLock;
import io.latchkey.LockHandle;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
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
 * Contended hand-off: 8 threads in one JVM take turns on one lock name. Throughput is the hand-off rate
 * (grants per second, all threads); sample time gives each acquire + release's latency distribution,
 * waiting included (p99). Latchkey queues the threads in its client and sends one contender per name to
 * the store; Curator's {@code InterProcessMutex} (one instance shared by the threads, as documented) puts
 * every thread's node in the store and wakes its JVM's waiters through one monitor.
 *
 * <pre>java -jar benchmarks.jar zookeeper.ZooKeeperHandoff</pre>
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
// 5 x 5 s, as ZooKeeperUncontendedBenchmark, where 2 x 2 s left the C2 compiler busy (this suite was not profiled)
@Warmup(iterations = 5, time = 5)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(8)
@State(Scope.Benchmark)
public class ZooKeeperHandoffBenchmark {
    ZooKeeperBench bench;
    DistributedLock lock;
    InterProcessMutex mutex;

    @Setup(Level.Trial)
    public void open() throws Exception {
        bench = new ZooKeeperBench();
        lock = bench.latchkey.lock("handoff/one-name");
        mutex = new InterProcessMutex(bench.curator, "/curator-bench/handoff");
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        bench.close();
    }

    @Benchmark
    public long latchkey() throws InterruptedException {
        LockHandle h = lock.acquire(Duration.ofSeconds(60));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    @Benchmark
    public boolean curatorInterProcessMutex() throws Exception {
        mutex.acquire();
        mutex.release();
        return true;
    }
}

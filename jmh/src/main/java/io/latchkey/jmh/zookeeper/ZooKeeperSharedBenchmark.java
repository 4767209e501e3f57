package io.latchkey.jmh.zookeeper;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockHandle;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
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
 * Read-write locks and semaphores on one ZooKeeper server, Latchkey against Curator's recipes in one run:
 * read-lock acquire + release on one lock with every thread reading (readers share: nobody waits for the lock
 * itself), at 1 and 8 threads, against {@code InterProcessReadWriteLock}'s read lock; and 1-permit acquire + release
 * of a 4-permit semaphore at 8 threads (half of them wait at any moment) against {@code InterProcessSemaphoreV2}.
 * One Latchkey client and one Curator client, each shared by the threads (as both document).
 *
 * <pre>java -jar jmh/target/benchmarks.jar 'jmh.zookeeper.ZooKeeperShared'</pre>
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@State(Scope.Benchmark)
public class ZooKeeperSharedBenchmark {
    private static final int PERMITS = 4;

    ZooKeeperBench bench;
    DistributedLock read;
    InterProcessMutex curatorRead;
    DistributedSemaphore semaphore;
    InterProcessSemaphoreV2 curatorSemaphore;

    @Setup(Level.Trial)
    public void open() throws Exception {
        bench = new ZooKeeperBench();
        String name = "bench-shared-" + System.nanoTime();
        read = bench.latchkey.readWriteLock(name + "/rw").readLock();
        curatorRead = new InterProcessReadWriteLock(bench.curator, "/curator/" + name + "/rw").readLock();
        semaphore = bench.latchkey.semaphore(name + "/sem", PERMITS);
        curatorSemaphore = new InterProcessSemaphoreV2(bench.curator, "/curator/" + name + "/sem", PERMITS);
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        bench.close();
    }

    private long latchkeyRead() throws InterruptedException {
        LockHandle h = read.acquire(Duration.ofSeconds(60));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    private boolean curatorRead() throws Exception {
        curatorRead.acquire();
        curatorRead.release();
        return true;
    }

    @Benchmark
    @Threads(1)
    public long latchkeyRead_1thread() throws InterruptedException {
        return latchkeyRead();
    }

    @Benchmark
    @Threads(1)
    public boolean curatorRead_1thread() throws Exception {
        return curatorRead();
    }

    @Benchmark
    @Threads(8)
    public long latchkeyRead_8threads() throws InterruptedException {
        return latchkeyRead();
    }

    @Benchmark
    @Threads(8)
    public boolean curatorRead_8threads() throws Exception {
        return curatorRead();
    }

    @Benchmark
    @Threads(8)
    public long latchkeySemaphore_8threads() throws InterruptedException {
        LockHandle h = semaphore.acquire(1, Duration.ofSeconds(60));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    @Benchmark
    @Threads(8)
    public boolean curatorSemaphoreV2_8threads() throws Exception {
        Lease lease = curatorSemaphore.acquire();
        curatorSemaphore.returnLease(lease);
        return true;
    }
}

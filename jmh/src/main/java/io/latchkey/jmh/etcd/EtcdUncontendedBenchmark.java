package io.latchkey.jmh.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.lock.LockResponse;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.etcd.fixtures.EtcdCluster;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
 * Uncontended acquire + release on one real etcd member (data on tmpfs, fsync on), each thread on its own
 * lock name, one client shared by the threads as an application would:
 * <ul>
 *   <li>{@code latchkey}: the full API; two requests (the queueing transaction that also reads the holder,
 *       and the conditional delete), on the client's one kept-alive lease;</li>
 *   <li>{@code jetcdLock}: jetcd's {@code Lock} service ({@code lock(name, lease)} + {@code unlock(key)}) on
 *       one kept-alive lease: the peer;</li>
 *   <li>{@code rawTxnDelete}: the floor, a put-if-absent transaction on a lease and a delete.</li>
 * </ul>
 *
 * <p>The warm-up is long because jetcd, gRPC, Netty and Vert.x keep the JIT busy for tens of seconds: after 4 × 2 s
 * of warm-up the C2 compiler thread still took 180–390 µs of CPU per cycle during the measurement (a profile of each
 * peer, 2026-11-28, on 2 cores that also run etcd), more for Latchkey's larger code path than for the others, so a short
 * warm-up measures compilation; after 10 × 5 s it took 22 µs per Latchkey cycle at one thread and 1–2 µs at eight.
 *
 * <pre>java -jar benchmarks.jar etcd.EtcdUncontended</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 10, time = 5)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class EtcdUncontendedBenchmark {
    EtcdCluster etcd;
    LockClient latchkey;
    EtcdBench.JetcdSession jetcd;

    @Setup(Level.Trial)
    public void open() throws Exception {
        etcd = EtcdCluster.single();
        System.out.println("etcd: " + etcd);
        latchkey = EtcdBench.latchkey(etcd);
        jetcd = new EtcdBench.JetcdSession(etcd);
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        latchkey.close();
        jetcd.close();
        etcd.close();
    }

    /** Each thread's own names. */
    @State(Scope.Thread)
    public static class PerThread {
        DistributedLock lock;
        ByteSequence jetcdName;
        EtcdBench.RawLock raw;

        @Setup(Level.Trial)
        public void open(EtcdUncontendedBenchmark b) {
            int id = EtcdBench.IDS.incrementAndGet();
            lock = b.latchkey.lock("bench/uncontended-" + id);
            jetcdName = EtcdBench.bytes("jetcd-bench/uncontended-" + id);
            raw = new EtcdBench.RawLock(b.jetcd.client, "raw-bench/uncontended-" + id, "raw-" + id, b.jetcd.lease);
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
    public ByteSequence jetcdLock_1thread(PerThread t) throws Exception {
        return jetcdCycle(t);
    }

    @Benchmark
    @Threads(8)
    public ByteSequence jetcdLock_8threads(PerThread t) throws Exception {
        return jetcdCycle(t);
    }

    @Benchmark
    @Threads(1)
    public boolean rawTxnDelete_1thread(PerThread t) throws Exception {
        return rawCycle(t);
    }

    @Benchmark
    @Threads(8)
    public boolean rawTxnDelete_8threads(PerThread t) throws Exception {
        return rawCycle(t);
    }

    private static long latchkeyCycle(PerThread t) throws InterruptedException {
        LockHandle h = t.lock.acquire(Duration.ofSeconds(10));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    private ByteSequence jetcdCycle(PerThread t) throws Exception {
        LockResponse r =
                jetcd.client.getLockClient().lock(t.jetcdName, jetcd.lease).get(10, TimeUnit.SECONDS);
        jetcd.client.getLockClient().unlock(r.getKey()).get(10, TimeUnit.SECONDS);
        return r.getKey();
    }

    private static boolean rawCycle(PerThread t) throws Exception {
        if (!t.raw.tryLock()) {
            throw new IllegalStateException("an uncontended raw lock was busy");
        }
        t.raw.unlock();
        return true;
    }
}

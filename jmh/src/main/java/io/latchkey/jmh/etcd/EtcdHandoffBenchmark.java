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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Contended hand-off on one real etcd member (data on tmpfs, fsync on): 8 threads, each with its own client
 * (its own connection and lease, as 8 processes would be), take turns on one lock name. Throughput is the
 * hand-off rate (grants per second, all threads); sample time gives each thread's acquire + release latency,
 * waiting for the 7 others included (p50, p99); and each trial prints the release-to-acquire gap (p50, p99),
 * the hand-off latency itself.
 * <ul>
 *   <li>{@code latchkey}: waiters queue by create revision and each watches only its predecessor, from the
 *       current revision (a synced watch);</li>
 *   <li>{@code jetcdLock}: jetcd's {@code Lock} service, i.e. etcd's v3lock, whose waiters watch from an old
 *       revision and are caught up by the server's 100 ms loop;</li>
 *   <li>{@code rawTxnDelete}: put-if-absent + delete, busy waiters watch the key from the current revision and
 *       all retry at each release (not fair).</li>
 * </ul>
 *
 * <pre>java -jar benchmarks.jar etcd.EtcdHandoff</pre>
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
// 10 x 5 s, as EtcdUncontendedBenchmark: after 2 x 3 s the C2 compiler still took 42 % of the JVM's CPU while
// Latchkey's hand-off was measured, 0.9 % after 10 x 5 s (jmh/README.md, "Warm-up", session 34)
@Warmup(iterations = 10, time = 5)
@Measurement(iterations = 4, time = 3)
@Fork(1)
@Threads(8)
@State(Scope.Benchmark)
public class EtcdHandoffBenchmark {
    EtcdCluster etcd;
    final EtcdBench.HandoffGaps gaps = new EtcdBench.HandoffGaps();
    String benchmark = "?";
    boolean measuring;

    @Setup(Level.Trial)
    public void open(org.openjdk.jmh.infra.BenchmarkParams params) {
        etcd = EtcdCluster.single();
        benchmark = params.getBenchmark().replaceFirst(".*\\.", "") + " (" + params.getMode() + ")";
        System.out.println("etcd: " + etcd);
    }

    @Setup(Level.Iteration)
    public void iteration(IterationParams params) {
        // count the hand-offs of the measurement iterations only
        if (params.getType() == IterationType.WARMUP) {
            gaps.reset();
            measuring = false;
        } else if (!measuring) {
            gaps.reset();
            measuring = true;
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        System.out.println(gaps.summary(benchmark));
        etcd.close();
    }

    /** Each thread is its own client. */
    @State(Scope.Thread)
    public static class Contender {
        LockClient latchkey;
        DistributedLock lock;
        EtcdBench.JetcdSession jetcd;
        ByteSequence jetcdName;
        EtcdBench.RawLock raw;

        @Setup(Level.Trial)
        public void open(EtcdHandoffBenchmark b) throws Exception {
            int id = EtcdBench.IDS.incrementAndGet();
            latchkey = EtcdBench.latchkey(b.etcd);
            lock = latchkey.lock("bench/handoff");
            jetcd = new EtcdBench.JetcdSession(b.etcd);
            jetcdName = EtcdBench.bytes("jetcd-bench/handoff");
            raw = new EtcdBench.RawLock(jetcd.client, "raw-bench/handoff", "raw-" + id, jetcd.lease);
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            latchkey.close();
            jetcd.close();
        }
    }

    @Benchmark
    public long latchkey(Contender c) throws InterruptedException {
        LockHandle h = c.lock.acquire(Duration.ofSeconds(60));
        gaps.afterAcquire();
        long token = h.fencingToken();
        gaps.beforeRelease();
        h.release();
        return token;
    }

    @Benchmark
    public ByteSequence jetcdLock(Contender c) throws Exception {
        LockResponse r =
                c.jetcd.client.getLockClient().lock(c.jetcdName, c.jetcd.lease).get(60, TimeUnit.SECONDS);
        gaps.afterAcquire();
        gaps.beforeRelease();
        c.jetcd.client.getLockClient().unlock(r.getKey()).get(60, TimeUnit.SECONDS);
        return r.getKey();
    }

    @Benchmark
    public boolean rawTxnDelete(Contender c) throws Exception {
        c.raw.lock();
        gaps.afterAcquire();
        gaps.beforeRelease();
        c.raw.unlock();
        return true;
    }
}

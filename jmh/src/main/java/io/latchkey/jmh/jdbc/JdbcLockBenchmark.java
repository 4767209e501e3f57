package io.latchkey.jmh.jdbc;

import io.latchkey.DistributedLock;
import io.latchkey.Fairness;
import io.latchkey.Latchkey;
import io.latchkey.Fairness;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import io.latchkey.jdbc.JdbcLockBackend;
import io.latchkey.jdbc.JdbcMode;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.LockBackend;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Iterator;
import java.util.Locale;
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

/**
 * Latchkey's JDBC backend against a raw-SQL baseline (the same statements with plain JDBC, {@link RawSql}) on
 * the same HikariCP pool, in the same run, for each dialect and mode:
 * <ul>
 *   <li>{@code uncontended_*}: each thread acquires and releases its own lock (1 and 8 threads);</li>
 *   <li>{@code *_handoff_8threads}: 8 threads on one name; throughput of completed acquire + release
 *       cycles. Latchkey waits natively (LISTEN/NOTIFY or a blocking database lock) or backs off (1–20 ms).
 *       The raw baseline sends the same statements with the obvious waiting of each mode: in lease mode it
 *       retries with the same 1–20 ms jittered exponential backoff; in session mode the acquire statement
 *       waits in the database (pg_advisory_lock, GET_LOCK with a timeout, H2's lock timeout).</li>
 *   <li>{@code latchkey_handoff_8clients}: 8 threads on one name, each with a LockClient (backend, LISTEN
 *       connection) of its own on the shared pool, so the waiters are separate clients that meet only in the
 *       database: what a release wakes across clients (one LISTEN/NOTIFY waiter, or the database's queue).</li>
 * </ul>
 * Throughput in operations (acquire + release cycles) per millisecond.
 *
 * <pre>java -jar benchmarks.jar 'jmh.jdbc.JdbcLockBenchmark' -p dialect=POSTGRESQL -p mode=LEASE</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
// 5 x 5 s: after 2 x 2 s, the C2 compiler still took 19 % of the JVM's CPU while Latchkey was measured on PostgreSQL
// at 8 threads (8 % for raw SQL), and one run of each read 0.76x raw against 1.00x after 10 x 5 s; after 5 x 5 s, C2
// took under 1 % (jmh/README.md)
@Warmup(iterations = 5, time = 5)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@State(Scope.Benchmark)
public class JdbcLockBenchmark {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final Duration LEASE = LockOptions.defaults().lease();

    @Param({"POSTGRESQL", "MARIADB", "H2"})
    public String dialect;

    @Param({"LEASE", "SESSION"})
    public String mode;

    JdbcDatabase db;
    LockBackend backend;
    LockClient client;
    RawSql raw;
    String shared;
    LockOptions waiting;
    LockOptions waitingUnfair;

    @Setup(Level.Trial)
    public void open() {
        db = new JdbcDatabase(dialect, 20);
        JdbcMode m = JdbcMode.valueOf(mode);
        String table = "jmh_" + mode.toLowerCase(Locale.ROOT);
        backend = JdbcLockBackend.builder(db.pool).mode(m).table(table).build();
        client = Latchkey.client(backend);
        raw = new RawSql(db.dialect, m, table);
        shared = "shared-" + NAMES.incrementAndGet();
        waiting = LockOptions.builder()
                .retry(RetryStrategy.exponential(Duration.ofMillis(1), Duration.ofMillis(20)))
                .build();
        waitingUnfair = waiting.toBuilder().fairness(Fairness.NONE).build();
        warm(shared);
    }

    void warm(String name) {
        client.lock(name).tryAcquire().orElseThrow().close(); // creates the row: every measured cycle finds it
    }

    @TearDown(Level.Trial)
    public void close() {
        client.close();
        db.close();
    }

    /** One lock name per benchmark thread. */
    @State(Scope.Thread)
    public static class Own {
        String name;
        String owner;
        DistributedLock lock;
        long cycle;

        @Setup(Level.Trial)
        public void open(JdbcLockBenchmark b) {
            name = "own-" + NAMES.incrementAndGet();
            owner = "raw-owner-" + name;
            b.warm(name);
            lock = b.client.lock(name);
        }
    }

    // ------------------------------------------------------------------ uncontended

    @Benchmark
    @Threads(1)
    public long latchkey_uncontended_1thread(Own own) {
        return latchkeyCycle(own);
    }

    @Benchmark
    @Threads(8)
    public long latchkey_uncontended_8threads(Own own) {
        return latchkeyCycle(own);
    }

    @Benchmark
    @Threads(1)
    public long raw_uncontended_1thread(Own own) throws SQLException {
        return rawCycle(own);
    }

    @Benchmark
    @Threads(8)
    public long raw_uncontended_8threads(Own own) throws SQLException {
        return rawCycle(own);
    }

    /**
     * The client's own backend called through the SPI, without the core (the names are the thread's own, so the
     * core never sees these grants): separates the core's cost from the backend's, with the same pool and the
     * same LISTEN connection as every other benchmark here.
     */
    @Benchmark
    @Threads(1)
    public long spi_uncontended_1thread(Own own) {
        return spiCycle(backend, own);
    }

    @Benchmark
    @Threads(8)
    public long spi_uncontended_8threads(Own own) {
        return spiCycle(backend, own);
    }

    private static long spiCycle(LockBackend spi, Own own) {
        AcquireResult r =
                spi.tryAcquire(new AcquireRequest(own.name, own.owner + ":spi:" + own.cycle++, LEASE, Fairness.NONE));
        if (!(r instanceof Grant g)) {
            throw new IllegalStateException("uncontended lock was busy: " + r);
        }
        spi.release(g);
        return g.fencingToken();
    }

    private static long latchkeyCycle(Own own) {
        LockHandle h = own.lock.tryAcquire().orElseThrow(() -> new IllegalStateException("uncontended lock was busy"));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    private long rawCycle(Own own) throws SQLException {
        try (Connection c = db.pool.getConnection()) {
            long token = raw.cycle(c, own.name, own.owner + ":" + own.cycle++);
            if (token < 0) {
                throw new IllegalStateException("uncontended raw lock was busy");
            }
            return token;
        }
    }

    // ------------------------------------------------------------------ contended hand-off

    @Benchmark
    @BenchmarkMode({Mode.Throughput, Mode.SampleTime}) // the hand-off tail: p50, p99, p99.9
    @Threads(8)
    public long latchkey_handoff_8threads() throws InterruptedException {
        try (LockHandle h = client.lock(shared, waiting).acquire(Duration.ofSeconds(60))) {
            return h.fencingToken();
        }
    }

    /** A LockClient of the thread's own on the shared pool: its own backend and, on PostgreSQL lease, LISTEN connection. */
    @State(Scope.Thread)
    public static class OwnClient {
        LockClient client;

        @Setup(Level.Trial)
        public void open(JdbcLockBenchmark b) {
            client = Latchkey.client(JdbcLockBackend.builder(b.db.pool)
                    .mode(JdbcMode.valueOf(b.mode))
                    .table("jmh_" + b.mode.toLowerCase(Locale.ROOT))
                    .createTable(false)
                    .build());
        }

        @TearDown(Level.Trial)
        public void close() {
            client.close();
        }
    }

    @Benchmark
    @BenchmarkMode({Mode.Throughput, Mode.SampleTime}) // the hand-off tail: p50, p99, p99.9
    @Threads(8)
    public long latchkey_handoff_8clients(OwnClient me) throws InterruptedException {
        try (LockHandle h = me.client.lock(shared, waiting).acquire(Duration.ofSeconds(60))) {
            return h.fencingToken();
        }
    }

    /**
     * As {@link #latchkey_handoff_8clients}, with {@code Fairness.NONE}: on PostgreSQL a released lock is then not
     * kept for the waiter the release notified, so the releasing client may take it again first.
     */
    @Benchmark
    @BenchmarkMode({Mode.Throughput, Mode.SampleTime}) // the hand-off tail: p50, p99, p99.9
    @Threads(8)
    public long latchkey_handoff_8clients_unfair(OwnClient me) throws InterruptedException {
        try (LockHandle h = me.client.lock(shared, waitingUnfair).acquire(Duration.ofSeconds(60))) {
            return h.fencingToken();
        }
    }

    /** A raw contender's distinct owner value per attempt. */
    @State(Scope.Thread)
    public static class Contender {
        final String owner = "raw-contender-" + NAMES.incrementAndGet();
        long attempt;
    }

    @Benchmark
    @BenchmarkMode({Mode.Throughput, Mode.SampleTime}) // the hand-off tail: p50, p99, p99.9
    @Threads(8)
    public long raw_handoff_8threads(Contender me) throws SQLException, InterruptedException {
        String owner = me.owner + ":" + me.attempt++;
        if (JdbcMode.valueOf(mode) == JdbcMode.SESSION) {
            try (Connection c = db.pool.getConnection()) {
                return raw.sessionHandoff(c, shared, owner);
            }
        }
        Iterator<Duration> backoff = waiting.retry().delays(); // the jittered 1-20 ms backoff Latchkey is given
        for (; ; ) {
            try (Connection c = db.pool.getConnection()) {
                long token = raw.tryLease(c, shared, owner);
                if (token > 0) {
                    raw.releaseLease(c, shared, owner, token);
                    return token;
                }
            }
            TimeUnit.NANOSECONDS.sleep(backoff.next().toNanos());
        }
    }
}

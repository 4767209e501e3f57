package io.latchkey.jmh.jdbc;

import io.latchkey.DistributedLock;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import io.latchkey.jdbc.Dialect;
import io.latchkey.jdbc.JdbcLockBackend;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
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
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Latchkey's JDBC lease mode side by side with the database locks Java teams use today, on the same database
 * and the same HikariCP pool, in the same run:
 * <ul>
 *   <li>ShedLock's {@code JdbcTemplateLockProvider} with {@code usingDbTime()} (its safest setting): no
 *       waiting of its own, so its hand-off polls with the same 1–20 ms jittered backoff Latchkey is given;</li>
 *   <li>Spring Integration's {@code JdbcLockRegistry} over {@code DefaultLockRepository}, as configured by
 *       default (time to live 10 s, {@code lock()} polls every 100 ms).</li>
 * </ul>
 * Each does its own acquire + release cycle: {@code *_uncontended_*} on a name per thread (1 and 8 threads),
 * {@code *_handoff_8threads} with 8 threads on one name. Throughput in cycles per millisecond.
 *
 * <pre>java -jar benchmarks.jar 'jmh.jdbc.JdbcPeersBenchmark' -p dialect=POSTGRESQL</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
// 5 x 5 s, as JdbcLockBenchmark, where 2 x 2 s left the C2 compiler busy (this suite was not profiled: jmh/README.md)
@Warmup(iterations = 5, time = 5)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@State(Scope.Benchmark)
public class JdbcPeersBenchmark {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Param({"POSTGRESQL", "MARIADB"})
    public String dialect;

    JdbcDatabase db;
    LockClient latchkey;
    LockOptions waiting;
    JdbcTemplateLockProvider shedlock;
    DefaultLockRepository springRepository;
    JdbcLockRegistry spring;
    String shared;

    @Setup(Level.Trial)
    public void open() throws SQLException {
        db = new JdbcDatabase(dialect, 20);
        latchkey = Latchkey.client(
                JdbcLockBackend.builder(db.pool).table("jmh_peers_latchkey").build());
        waiting = LockOptions.builder()
                .retry(RetryStrategy.exponential(Duration.ofMillis(1), Duration.ofMillis(20)))
                .build();
        createPeerTables();
        shedlock = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(db.pool))
                .usingDbTime()
                .build());
        springRepository = new DefaultLockRepository(db.pool);
        springRepository.setTransactionManager(new DataSourceTransactionManager(db.pool));
        springRepository.afterPropertiesSet();
        springRepository.afterSingletonsInstantiated();
        spring = new JdbcLockRegistry(springRepository);
        shared = "shared-" + NAMES.incrementAndGet();
    }

    private void createPeerTables() throws SQLException {
        boolean pg = db.dialect == Dialect.POSTGRESQL;
        String time = pg ? "TIMESTAMP" : "TIMESTAMP(3)";
        String springTime = pg ? "TIMESTAMP" : "DATETIME(6)";
        try (Connection c = db.pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute(
                    "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL, lock_until " + time + " NOT NULL,"
                            + " locked_at " + time + " NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
            s.execute("CREATE TABLE IF NOT EXISTS INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL,"
                    + " CLIENT_ID CHAR(36), CREATED_DATE " + springTime + " NOT NULL, EXPIRED_AFTER " + springTime
                    + " NOT NULL,"
                    + " CONSTRAINT INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))");
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        latchkey.close();
        springRepository.close();
        db.close();
    }

    /** One lock name per benchmark thread, in each library. */
    @State(Scope.Thread)
    public static class Own {
        String name;
        DistributedLock latchkeyLock;
        Lock springLock;
        LockConfiguration shedlockConfig;

        @Setup(Level.Trial)
        public void open(JdbcPeersBenchmark b) {
            name = "own-" + NAMES.incrementAndGet();
            latchkeyLock = b.latchkey.lock(name);
            springLock = b.spring.obtain(name);
            shedlockConfig = new LockConfiguration(Instant.now(), name, LEASE, Duration.ZERO);
        }
    }

    // ------------------------------------------------------------------ Latchkey (lease mode)

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
    @BenchmarkMode({Mode.Throughput, Mode.SampleTime}) // the hand-off tail: p50, p99, p99.9
    @Threads(8)
    public long latchkey_handoff_8threads() throws InterruptedException {
        try (LockHandle h = latchkey.lock(shared, waiting).acquire(Duration.ofSeconds(60))) {
            return h.fencingToken();
        }
    }

    private static long latchkeyCycle(Own own) {
        LockHandle h =
                own.latchkeyLock.tryAcquire().orElseThrow(() -> new IllegalStateException("uncontended lock was busy"));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    // ------------------------------------------------------------------ ShedLock

    @Benchmark
    @Threads(1)
    public int shedlock_uncontended_1thread(Own own) {
        return shedlockCycle(own.shedlockConfig);
    }

    @Benchmark
    @Threads(8)
    public int shedlock_uncontended_8threads(Own own) {
        return shedlockCycle(own.shedlockConfig);
    }

    @Benchmark
    @BenchmarkMode({Mode.Throughput, Mode.SampleTime}) // the hand-off tail: p50, p99, p99.9
    @Threads(8)
    public int shedlock_handoff_8threads() throws InterruptedException {
        LockConfiguration config = new LockConfiguration(Instant.now(), shared, LEASE, Duration.ZERO);
        Iterator<Duration> backoff = waiting.retry().delays(); // the jittered 1-20 ms backoff Latchkey is given
        for (; ; ) {
            Optional<SimpleLock> lock = shedlock.lock(config);
            if (lock.isPresent()) {
                lock.get().unlock();
                return 1;
            }
            TimeUnit.NANOSECONDS.sleep(backoff.next().toNanos());
        }
    }

    private int shedlockCycle(LockConfiguration config) {
        SimpleLock lock =
                shedlock.lock(config).orElseThrow(() -> new IllegalStateException("uncontended ShedLock was busy"));
        lock.unlock();
        return 1;
    }

    // ------------------------------------------------------------------ Spring Integration JdbcLockRegistry

    @Benchmark
    @Threads(1)
    public int spring_uncontended_1thread(Own own) {
        return springCycle(own.springLock);
    }

    @Benchmark
    @Threads(8)
    public int spring_uncontended_8threads(Own own) {
        return springCycle(own.springLock);
    }

    @Benchmark
    @BenchmarkMode({Mode.Throughput, Mode.SampleTime}) // the hand-off tail: p50, p99, p99.9
    @Threads(8)
    public int spring_handoff_8threads() throws InterruptedException {
        Lock lock = spring.obtain(shared);
        lock.lockInterruptibly();
        lock.unlock();
        return 1;
    }

    private static int springCycle(Lock lock) {
        if (!lock.tryLock()) {
            throw new IllegalStateException("uncontended Spring JdbcLockRegistry lock was busy");
        }
        lock.unlock();
        return 1;
    }
}

package io.latchkey.jmh.jdbc;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import io.latchkey.jdbc.JdbcLockBackend;
import io.latchkey.jdbc.JdbcMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
 * Read locks and semaphores on PostgreSQL: Latchkey's lease mode (leased, renewed, fenced) against the SQL one would
 * write by hand, on the same HikariCP pool, in one run.
 *
 * <ul>
 *   <li>Read lock in lease mode and in session mode (a shared advisory lock plus a token), every thread reading one lock (readers share), at 1 and 8 threads. By hand: a session-level
 *       shared advisory lock, {@code pg_advisory_lock_shared} then {@code pg_advisory_unlock_shared} on one pooled
 *       connection (no lease: the lock lives as long as the connection; no token).</li>
 *   <li>Semaphore of 4 permits, 1-permit acquire + release at 8 threads (half of them wait). By hand: a table of 4
 *       slot rows; acquire claims a free slot with {@code UPDATE ... WHERE (name, slot) = (SELECT ... FOR UPDATE
 *       SKIP LOCKED LIMIT 1)}, release frees it; a thread that finds no free slot backs off as Latchkey's waiters
 *       do here (1 ms doubling to 20 ms). No lease: a crashed holder's slot never comes back; no token.</li>
 * </ul>
 *
 * <pre>java -jar jmh/target/benchmarks.jar 'jmh.jdbc.PostgresShared'</pre>
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@State(Scope.Benchmark)
public class PostgresSharedBenchmark {
    private static final int PERMITS = 4;
    private static final long MIN_BACKOFF = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long MAX_BACKOFF = TimeUnit.MILLISECONDS.toNanos(20);

    JdbcDatabase db;
    LockClient latchkey;
    LockClient session;
    DistributedLock read;
    DistributedLock sessionRead;
    DistributedSemaphore semaphore;
    String semaphoreName;
    long advisoryKey;

    @Setup(Level.Trial)
    public void open() throws SQLException {
        db = new JdbcDatabase("POSTGRESQL", 20);
        latchkey = Latchkey.client(
                JdbcLockBackend.builder(db.pool).table("jmh_shared_latchkey").build());
        LockOptions waiting = LockOptions.builder()
                .retry(RetryStrategy.exponential(Duration.ofMillis(1), Duration.ofMillis(20)))
                .build();
        String name = "shared-" + System.nanoTime();
        read = latchkey.readWriteLock(name, waiting).readLock();
        session = Latchkey.client(JdbcLockBackend.builder(db.pool)
                .mode(JdbcMode.SESSION)
                .table("jmh_shared_session")
                .build());
        sessionRead = session.readWriteLock(name).readLock();
        semaphore = latchkey.semaphore(name, PERMITS, waiting);
        semaphoreName = name;
        advisoryKey = System.nanoTime();
        try (Connection c = db.pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS jmh_hand_semaphore (name TEXT NOT NULL, slot INT NOT NULL,"
                    + " holder TEXT, PRIMARY KEY (name, slot))");
            for (int i = 0; i < PERMITS; i++) {
                s.execute("INSERT INTO jmh_hand_semaphore (name, slot) VALUES ('" + name + "', " + i + ")");
            }
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        latchkey.close();
        session.close();
        db.close();
    }

    private long latchkeyRead() throws InterruptedException {
        LockHandle h = read.acquire(Duration.ofSeconds(60));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    private long sessionRead() throws InterruptedException {
        LockHandle h = sessionRead.acquire(Duration.ofSeconds(60));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    @Benchmark
    @Threads(1)
    public long latchkeySessionRead_1thread() throws InterruptedException {
        return sessionRead();
    }

    @Benchmark
    @Threads(8)
    public long latchkeySessionRead_8threads() throws InterruptedException {
        return sessionRead();
    }

    private boolean handRead() throws SQLException {
        try (Connection c = db.pool.getConnection()) {
            try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_lock_shared(?)")) {
                lock.setLong(1, advisoryKey);
                lock.executeQuery().close();
            }
            try (PreparedStatement unlock = c.prepareStatement("SELECT pg_advisory_unlock_shared(?)")) {
                unlock.setLong(1, advisoryKey);
                try (ResultSet rs = unlock.executeQuery()) {
                    return rs.next() && rs.getBoolean(1);
                }
            }
        }
    }

    @Benchmark
    @Threads(1)
    public long latchkeyRead_1thread() throws InterruptedException {
        return latchkeyRead();
    }

    @Benchmark
    @Threads(1)
    public boolean handSqlRead_1thread() throws SQLException {
        return handRead();
    }

    @Benchmark
    @Threads(8)
    public long latchkeyRead_8threads() throws InterruptedException {
        return latchkeyRead();
    }

    @Benchmark
    @Threads(8)
    public boolean handSqlRead_8threads() throws SQLException {
        return handRead();
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
    public int handSqlSemaphore_8threads() throws SQLException {
        String me = UUID.randomUUID().toString();
        int slot = -1;
        long backoff = MIN_BACKOFF;
        while (slot < 0) {
            try (Connection c = db.pool.getConnection();
                    PreparedStatement claim = c.prepareStatement("UPDATE jmh_hand_semaphore SET holder = ?"
                            + " WHERE (name, slot) = (SELECT name, slot FROM jmh_hand_semaphore WHERE name = ? AND"
                            + " holder IS NULL LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING slot")) {
                claim.setString(1, me);
                claim.setString(2, semaphoreName);
                try (ResultSet rs = claim.executeQuery()) {
                    slot = rs.next() ? rs.getInt(1) : -1;
                }
            }
            if (slot < 0) {
                LockSupport.parkNanos(backoff);
                backoff = Math.min(MAX_BACKOFF, backoff * 2);
            }
        }
        try (Connection c = db.pool.getConnection();
                PreparedStatement free = c.prepareStatement(
                        "UPDATE jmh_hand_semaphore SET holder = NULL WHERE name = ? AND slot = ? AND holder = ?")) {
            free.setString(1, semaphoreName);
            free.setInt(2, slot);
            free.setString(3, me);
            return free.executeUpdate();
        }
    }
}

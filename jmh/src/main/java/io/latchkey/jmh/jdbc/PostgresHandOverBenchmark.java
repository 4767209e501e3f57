package io.latchkey.jmh.jdbc;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import io.latchkey.jdbc.Dialect;
import io.latchkey.jdbc.JdbcLockBackend;
import io.latchkey.jdbc.JdbcMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
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
 * What a fair hand-off inside one client could cost on PostgreSQL lease mode, at best: 8 threads on one name, waiting in
 * FIFO order in the JVM, as Latchkey's local gate makes them wait. Latchkey's hand-off is two statements in series
 * (the holder's release, then the next thread's acquire, after it wakes). The floor here hands the row over in one:
 * the releasing thread changes its owner to the next waiter's, with a new token and a new lease, and wakes that waiter
 * holding the lock ({@code raw_transferHandoff_8threads}). Lease, token and expiry are as Latchkey's, on the same table;
 * no NOTIFY, no queue of other clients, no loss detection. It measures whether a hand-over step (an SPI method doing
 * release and grant in one round trip) would be worth building, against Latchkey's hand-off in the same run; ShedLock's
 * is in {@code JdbcPeersBenchmark}.
 *
 * <pre>java -jar jmh/target/benchmarks.jar 'jmh.jdbc.PostgresHandOver'</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class PostgresHandOverBenchmark {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final String TABLE = "jmh_handover";
    private static final long LEASE_MICROS = TimeUnit.NANOSECONDS.toMicros(LockOptions.defaults().lease().toNanos());

    JdbcDatabase db;
    LockClient client;
    LockOptions waiting;
    RawSql raw;
    String shared;
    String rawShared; // a row of its own: Latchkey's release may leave its waiters' bookkeeping on `shared`
    String transfer;

    // the raw floor's local queue: one holder, FIFO waiters (guarded by queueLock; no I/O while it is held)
    private final ReentrantLock queueLock = new ReentrantLock();
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
    private boolean taken;

    /** A thread waiting for the lock; {@code token} is set by whoever hands it over. */
    static final class Waiter {
        static final long ACQUIRE_YOURSELF = -1;
        final Thread thread = Thread.currentThread();
        final String owner;
        volatile long token; // 0 while waiting

        Waiter(String owner) {
            this.owner = owner;
        }
    }

    @Setup(Level.Trial)
    public void open() {
        db = new JdbcDatabase("POSTGRESQL", 20);
        client = Latchkey.client(
                JdbcLockBackend.builder(db.pool).mode(JdbcMode.LEASE).table(TABLE).build());
        waiting = LockOptions.builder()
                .retry(RetryStrategy.exponential(Duration.ofMillis(1), Duration.ofMillis(20)))
                .build();
        raw = new RawSql(Dialect.POSTGRESQL, JdbcMode.LEASE, TABLE);
        shared = "handover-" + NAMES.incrementAndGet();
        client.lock(shared).tryAcquire().orElseThrow().close(); // the row exists before the first measured cycle
        rawShared = shared + "-raw";
        client.lock(rawShared).tryAcquire().orElseThrow().close();
        transfer = "UPDATE " + TABLE + " SET owner = ?, token = token + 1, acquired_at = now(),"
                + " expires_at = now() + ? * interval '1 microsecond'"
                + " WHERE ns = ? AND name = ? AND owner = ? AND token = ? AND expires_at > now() RETURNING token";
    }

    @TearDown(Level.Trial)
    public void close() {
        client.close();
        db.close();
    }

    /** Latchkey's hand-off in one client: the local gate, then the store. */
    @Benchmark
    @Threads(8)
    public long latchkey_handoff_8threads() throws InterruptedException {
        try (LockHandle h = client.lock(shared, waiting).acquire(Duration.ofSeconds(60))) {
            return h.fencingToken();
        }
    }

    /** The floor: FIFO waiters in the JVM, and each hand-off one statement that gives the row to the next waiter. */
    @Benchmark
    @Threads(8)
    public long raw_transferHandoff_8threads(JdbcLockBenchmark.Contender me) throws SQLException {
        String owner = me.owner + ":" + me.attempt++;
        Waiter w = null;
        queueLock.lock();
        try {
            if (taken) {
                w = new Waiter(owner);
                queue.add(w);
            } else {
                taken = true;
            }
        } finally {
            queueLock.unlock();
        }
        long token;
        if (w == null) {
            token = acquire(owner);
        } else {
            while ((token = w.token) == 0) {
                LockSupport.park(this);
            }
            if (token == Waiter.ACQUIRE_YOURSELF) {
                token = acquire(owner);
            }
        }
        // held: hand it to the next waiter in one statement, or release it
        Waiter next = poll(false);
        if (next != null) {
            long handed = Waiter.ACQUIRE_YOURSELF; // if the hand-over fails, the waiter fails loudly, not parks forever
            try {
                handed = handOver(owner, token, next.owner);
            } finally {
                next.token = handed;
                LockSupport.unpark(next.thread);
            }
            return token;
        }
        try (Connection c = db.pool.getConnection()) {
            raw.releaseLease(c, rawShared, owner, token);
        }
        next = poll(true);
        if (next != null) { // came while the row was being released: it takes the lock in the database itself
            next.token = Waiter.ACQUIRE_YOURSELF;
            LockSupport.unpark(next.thread);
        }
        return token;
    }

    /** The next waiter, if any; with {@code freeIfNone}, none waiting leaves the lock free for the next comer. */
    private Waiter poll(boolean freeIfNone) {
        queueLock.lock();
        try {
            Waiter next = queue.poll();
            if (next == null && freeIfNone) {
                taken = false;
            }
            return next;
        } finally {
            queueLock.unlock();
        }
    }

    private long acquire(String owner) throws SQLException {
        try (Connection c = db.pool.getConnection()) {
            long token = raw.tryLease(c, rawShared, owner);
            if (token <= 0) {
                throw new IllegalStateException("the row was not free for the only local holder");
            }
            return token;
        }
    }

    private long handOver(String owner, long token, String nextOwner) throws SQLException {
        try (Connection c = db.pool.getConnection();
                PreparedStatement ps = c.prepareStatement(transfer)) {
            ps.setString(1, nextOwner);
            ps.setLong(2, LEASE_MICROS);
            ps.setString(3, "");
            ps.setString(4, rawShared);
            ps.setString(5, owner);
            ps.setLong(6, token);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("the hand-over found the row no longer held by " + owner);
                }
                return rs.getLong(1);
            }
        }
    }
}

package io.latchkey.jdbc;

import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.Fairness;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.HandOver;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.WakeBoard;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Lease mode: one row per name, every operation one statement on a connection borrowed for just that
 * statement (see LeaseStatements for the SQL). Holds no per-lock state, so any thread may call anything.
 *
 * Waiting. PostgreSQL waits here, in acquire(request, maxWait), woken by LISTEN/NOTIFY (PgWaiting): a busy
 * attempt queues this client's listener pid in the row, and a release notifies only the first live pid of
 * that queue, so one release wakes one waiting client (the core already sends one contender per name per
 * client). Between notifications a waiter looks again only when the holder's lease ends or, as a safety net
 * for a lost notification, every SAFETY_NET; while the listener is reconnecting, every NO_LISTENER_POLL.
 * Giving up (timeout, interruption, failure) leaves the queue and passes a pending wake-up on.
 * MariaDB/H2: one attempt, and the core's jittered backoff, capped by the holder's remaining lease (which a
 * busy attempt reads in a second statement), decides when to look again.
 */
final class LeaseBackend extends JdbcLockBackend {
    /** How many exclusive grants one batched renewal sends at most. */
    static final int RENEWAL_BATCH = 128;

    private static final Logger log = LoggerFactory.getLogger(LeaseBackend.class);
    /** How often a PostgreSQL waiter looks again when no notification came (a lost one, a stale queue entry). */
    static final Duration SAFETY_NET = Duration.ofSeconds(2);
    /** How often a PostgreSQL waiter looks while this client has no listening connection. */
    static final Duration NO_LISTENER_POLL = Duration.ofMillis(200);

    private final LeaseStatements sql;
    private final LeaseSemaphores semaphores;
    private final LeaseReadWrite readWrite;
    private final PgWaiting wakeups;
    private final ThreadLocal<long[]> attemptSnapshot = ThreadLocal.withInitial(() -> new long[1]);

    LeaseBackend(Builder b, Dialect dialect) {
        super(b, dialect);
        this.sql = new LeaseStatements(table, dialect);
        this.semaphores = new LeaseSemaphores(connections, new SemaphoreStatements(table, dialect), description());
        this.readWrite = new LeaseReadWrite(connections, new ReadWriteStatements(table, dialect), description());
        this.wakeups = dialect == Dialect.POSTGRESQL
                ? new PgWaiting(connections, table.toLowerCase(java.util.Locale.ROOT), this::passOn)
                : null;
    }

    @Override
    public JdbcMode mode() {
        return JdbcMode.LEASE;
    }

    @Override
    public Set<Capability> capabilities() {
        return capabilities(dialect, JdbcMode.LEASE);
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        if (isPermits(request.kind())) {
            return semaphores.tryAcquire(request, key(request.name()));
        }
        if (isReadWrite(request.kind())) {
            return readWrite.tryAcquire(request, key(request.name()));
        }
        if (wakeups != null) {
            attemptSnapshot.get()[0] = wakeups.snapshot();
        }
        return attempt(request, null);
    }

    private AcquireResult attempt(AcquireRequest request, Integer waiter) {
        LockKey k = key(request.name());
        long start = System.nanoTime();
        Connection c = null;
        try {
            c = borrow();
            LeaseStatements.Outcome o = sql.acquire(
                    c, k, request.owner(), micros(request.lease()), waiter, request.fairness() != Fairness.NONE);
            if (o.granted()) {
                return new Grant(request.name(), request.owner(), o.token(), validUntil(start, request.lease()), null);
            }
            if (o.holder() == null && dialect != Dialect.POSTGRESQL) {
                o = sql.holder(c, k);
            }
            if (o.holder() == null) {
                // PostgreSQL: released and kept for the queue's head; look again when its grace ends, not at the
                // safety net, in case the head does not come
                return o.remainingMicros() > 0
                        ? new Busy(null, -1, Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(o.remainingMicros())))
                        : Busy.UNKNOWN;
            }
            return new Busy(
                    o.holder(),
                    o.holderToken(),
                    o.remainingMicros() >= 0
                            ? Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(o.remainingMicros()))
                            : null);
        } catch (SQLException e) {
            if (dialect == Dialect.H2 && isConflict(e)) {
                return Busy.UNKNOWN; // a concurrent attempt on the same row won
            }
            throw connections.unavailable("acquire", request.name(), e);
        } finally {
            connections.giveBack(c);
        }
    }

    /** H2's lock timeout, serialization failure or duplicate key: a concurrent attempt won; busy, not broken. */
    static boolean isConflict(SQLException e) {
        String state = e.getSQLState();
        return e.getErrorCode() == 50200
                || e.getErrorCode() == 90131
                || "40001".equals(state)
                || (state != null && state.startsWith("23"));
    }

    @Override
    public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        if (wakeups == null || request.kind().type() != GrantKind.Type.EXCLUSIVE) {
            return tryAcquire(request);
        }
        long begin = System.nanoTime();
        long waitNanos = maxWait.toNanos();
        String key = namespace + "/" + request.name();
        int queuedAs = 0; // the listener pid this waiter is queued under in the row, 0 if none
        boolean granted = false;
        try (WakeBoard.Waiter waiter = wakeups.register(key)) {
            try {
                for (; ; ) {
                    long since = wakeups.snapshot();
                    int pid = wakeups.pid();
                    long left = waitNanos - (System.nanoTime() - begin);
                    // the last attempt (time is up) does not join the queue, but names the pid it is queued under:
                    // a grant then takes it out of the queue (else it stayed, ahead of others, until a NOTIFY to it was
                    // passed on, and it made this client's own releases of the name notify it instead of handing over)
                    Integer me = left > 0 && pid != 0 ? Integer.valueOf(pid) : queuedAs != 0 ? Integer.valueOf(queuedAs) : null;
                    AcquireResult r = attempt(request, me);
                    if (r instanceof Grant) {
                        granted = true; // the granting statement took this pid out of the queue
                        return r;
                    }
                    if (left > 0 && pid != 0) {
                        queuedAs = pid;
                    }
                    left = waitNanos - (System.nanoTime() - begin);
                    if (left <= 0) {
                        return r;
                    }
                    long pause = Math.min(left, (pid != 0 ? SAFETY_NET : NO_LISTENER_POLL).toNanos());
                    if (r instanceof Busy b && b.retryAfter() != null) {
                        pause = Math.min(pause, b.retryAfter().toNanos() + TimeUnit.MILLISECONDS.toNanos(1));
                    }
                    waiter.await(pause, since);
                }
            } finally {
                if (!granted && queuedAs != 0) {
                    leave(request.name(), queuedAs);
                }
            }
        }
    }

    /** Leaves the row's waiting queue; a failure only costs the next waiter a safety-net poll. */
    private void leave(String name, int pid) {
        Connection c = null;
        try {
            c = borrow();
            sql.leave(c, namespace, name, pid);
        } catch (SQLException | RuntimeException e) {
            log.debug("leaving the wait queue of lock '{}' on {} failed", name, description(), e);
        } finally {
            connections.giveBack(c);
        }
    }

    /** A notification reached this client for a key it no longer waits for: leave and wake the next waiter. */
    private void passOn(String key, int pid) {
        int slash = key.indexOf('/');
        if (slash >= 0 && key.substring(0, slash).equals(namespace)) {
            leave(key.substring(slash + 1), pid);
        }
    }

    @Override
    public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        if (wakeups == null) {
            return super.awaitChange(name, timeout);
        }
        return wakeups.await(namespace + "/" + name, timeout, attemptSnapshot.get()[0]);
    }

    @Override
    public boolean awaitChange(AcquireRequest request, Duration timeout) throws InterruptedException {
        if (request.kind().type() != GrantKind.Type.EXCLUSIVE) {
            // no notification for semaphores and read-write locks yet: the core's backoff decides when to look again
            TimeUnit.NANOSECONDS.sleep(timeout.toNanos());
            return false;
        }
        return awaitChange(request.name(), timeout);
    }

    @Override
    public int availablePermits(String name, int limit) {
        return semaphores.availablePermits(name, limit, key(name));
    }

    @Override
    public Grant downgrade(Grant write, AcquireRequest read) {
        return readWrite.downgrade(write, read, key(write.name()));
    }

    @Override
    public void withdraw(AcquireRequest request) {
        if (request.kind().type() == GrantKind.Type.WRITE) {
            readWrite.withdraw(request, key(request.name()));
        }
    }

    private static boolean isPermits(GrantKind kind) {
        return kind.type() == GrantKind.Type.PERMITS;
    }

    private static boolean isReadWrite(GrantKind kind) {
        return kind.type() == GrantKind.Type.READ || kind.type() == GrantKind.Type.WRITE;
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        if (isPermits(grant.kind())) {
            return semaphores.renew(grant, lease, key(grant.name()));
        }
        if (isReadWrite(grant.kind())) {
            return readWrite.renew(grant, lease, key(grant.name()));
        }
        long start = System.nanoTime();
        Connection c = null;
        try {
            c = borrow();
            if (sql.renew(c, key(grant.name()), grant.owner(), grant.fencingToken(), micros(lease))) {
                return RenewResult.renewed(validUntil(start, lease));
            }
            return RenewResult.notHeld(); // expired, or forced out: the core tells which by the grant's validity
        } catch (SQLException e) {
            throw connections.unavailable("renew", grant.name(), e);
        } finally {
            connections.giveBack(c);
        }
    }

    /**
     * 128: the background renewals of that many locks go to the database as one JDBC batch of the renewal UPDATE
     * (the drivers pipeline a batch: one round trip), each row's update count saying whether that grant was extended.
     */
    @Override
    public int renewalBatchSize() {
        return RENEWAL_BATCH;
    }

    @Override
    public java.util.List<@org.jspecify.annotations.Nullable RenewResult> renewAll(
            java.util.List<Grant> grants, java.util.List<Duration> leases) {
        long start = System.nanoTime();
        java.util.List<LockKey> keys = new java.util.ArrayList<>(grants.size());
        java.util.List<Long> micros = new java.util.ArrayList<>(grants.size());
        for (int i = 0; i < grants.size(); i++) {
            keys.add(key(grants.get(i).name()));
            micros.add(micros(leases.get(i)));
        }
        Boolean[] extended;
        Connection c = null;
        try {
            c = borrow();
            extended = sql.renewAll(c, keys, grants, micros);
        } catch (SQLException e) {
            throw connections.unavailable(
                    "renew " + grants.size() + " locks in one batch, among them", grants.get(0).name(), e);
        } finally {
            connections.giveBack(c);
        }
        java.util.List<@org.jspecify.annotations.Nullable RenewResult> out = new java.util.ArrayList<>(grants.size());
        for (int i = 0; i < grants.size(); i++) {
            if (extended[i] == null) { // the driver gave no count: ask for this one on its own
                try {
                    out.add(renew(grants.get(i), leases.get(i)));
                } catch (io.latchkey.BackendUnavailableException e) {
                    out.add(null); // an outage for this grant alone: the others' answers stand
                }
            } else {
                out.add(extended[i] ? RenewResult.renewed(validUntil(start, leases.get(i))) : RenewResult.notHeld());
            }
        }
        return out;
    }

    @Override
    public boolean release(Grant grant) {
        if (isPermits(grant.kind())) {
            return semaphores.release(grant, key(grant.name()));
        }
        if (isReadWrite(grant.kind())) {
            return readWrite.release(grant, key(grant.name()));
        }
        Connection c = null;
        try {
            c = borrow();
            return sql.release(c, key(grant.name()), grant.owner(), grant.fencingToken());
        } catch (SQLException e) {
            throw connections.unavailable("release", grant.name(), e);
        } finally {
            connections.giveBack(c);
        }
    }

    /**
     * PostgreSQL: the release and the next local owner's grant in one statement, unless another client is queued in
     * the row (then it is the release, which notifies that client). Other dialects keep no queue: the default.
     */
    @Override
    public HandOver handOver(Grant held, AcquireRequest next) {
        if (!sql.handsOver() || held.kind().type() != GrantKind.Type.EXCLUSIVE) {
            return HandOver.released(release(held)); // as the SPI's default
        }
        long start = System.nanoTime();
        Connection c = null;
        try {
            c = borrow();
            long token = sql.handOver(
                    c, key(held.name()), held.owner(), held.fencingToken(), next.owner(), micros(next.lease()));
            if (token > 0) {
                return HandOver.to(new Grant(next.name(), next.owner(), token, validUntil(start, next.lease()), null));
            }
            return HandOver.released(token == 0);
        } catch (SQLException e) {
            throw connections.unavailable("release", held.name(), e);
        } finally {
            connections.giveBack(c);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        Connection c = null;
        try {
            c = borrow();
            return sql.inspect(c, key(name));
        } catch (SQLException e) {
            throw connections.unavailable("inspect", name, e);
        } finally {
            connections.giveBack(c);
        }
    }

    @Override
    public List<LockInfo> list(String prefix) {
        Connection c = null;
        try {
            c = borrow();
            return sql.list(c, namespace, prefix);
        } catch (SQLException e) {
            throw connections.unavailable("list locks starting with '" + prefix + "' on", null, e);
        } finally {
            connections.giveBack(c);
        }
    }

    @Override
    public boolean forceRelease(String name) {
        Connection c = null;
        try {
            c = borrow();
            return sql.forceRelease(c, key(name));
        } catch (SQLException e) {
            throw connections.unavailable("force the release of", name, e);
        } finally {
            connections.giveBack(c);
        }
    }

    private Connection borrow() throws SQLException {
        Connection c = connections.borrow();
        if (!c.getAutoCommit()) {
            c.setAutoCommit(true); // every statement stands alone
        }
        return c;
    }

    @Override
    public void close() {
        if (wakeups != null) {
            wakeups.close();
        }
        super.close();
    }
}

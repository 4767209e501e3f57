package io.latchkey.jdbc;

import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.RenewResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/*
 * Lease mode: one row per name, every operation one statement on a connection borrowed for just that
 * statement (see LeaseTable for the SQL). Holds no per-lock state, so any thread may call anything.
 * PostgreSQL waiters are woken by LISTEN/NOTIFY (PgWakeups, one listening connection per backend);
 * elsewhere awaitChange sleeps and the core's jittered backoff decides how long.
 * The snapshot of the notification sequence is taken per thread before each attempt, because the core
 * calls tryAcquire and then awaitChange on the same thread (see PgWakeups for why it matters).
 */
final class LeaseBackend extends JdbcLockBackend {
    private final LeaseTable sql;
    private final PgWakeups wakeups;
    private final ThreadLocal<long[]> attemptSnapshot = ThreadLocal.withInitial(() -> new long[1]);

    LeaseBackend(Builder b, Dialect dialect) {
        super(b, dialect);
        String channel = "latchkey:" + table.toLowerCase(java.util.Locale.ROOT);
        this.sql = new LeaseTable(table, dialect, channel);
        this.wakeups = dialect == Dialect.POSTGRESQL ? new PgWakeups(connections, channel) : null;
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
        if (wakeups != null) {
            attemptSnapshot.get()[0] = wakeups.snapshot();
        }
        LockKey k = key(request.name());
        long start = System.nanoTime();
        Connection c = null;
        try {
            c = borrow();
            LeaseTable.Outcome o = sql.acquire(c, k, request.owner(), micros(request.lease()));
            if (o.granted()) {
                return new Grant(request.name(), request.owner(), o.token(), validUntil(start, request.lease()), null);
            }
            if (o.holder() == null) {
                return Busy.UNKNOWN;
            }
            return new Busy(o.holder(), o.holderToken(), o.remainingMicros() >= 0
                    ? Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(o.remainingMicros())) : null);
        } catch (SQLException e) {
            if (dialect == Dialect.H2 && isConflict(e)) {
                return Busy.UNKNOWN; // a concurrent attempt on the same row won
            }
            throw connections.unavailable("acquire", request.name(), e);
        } finally {
            connections.giveBack(c);
        }
    }

    private static boolean isConflict(SQLException e) {
        String state = e.getSQLState();
        return e.getErrorCode() == 50200 || e.getErrorCode() == 90131 || "40001".equals(state)
                || (state != null && state.startsWith("23"));
    }

    @Override
    public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        if (wakeups == null) {
            return super.awaitChange(name, timeout);
        }
        return wakeups.await(namespace + "/" + name, timeout, attemptSnapshot.get()[0]);
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
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

    @Override
    public boolean release(Grant grant) {
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

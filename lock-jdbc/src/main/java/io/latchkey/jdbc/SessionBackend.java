package io.latchkey.jdbc;

import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.RenewResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/*
 * Session mode: a grant is a database lock held by one pinned pooled connection (the SQL per dialect is in
 * SessionStatements and its subclasses).
 *
 * Concurrency design.
 * - Each grant owns its connection (SessionHold), used only under the hold's lock.
 * - Waiting happens in the database (SessionWaiting): after a failed try, the blocking statement runs on a
 *   worker while the caller waits on its Future, so the caller stays interruptible and keeps its deadline;
 *   on interruption or deadline the statement is cancelled, and a lock granted in that instant is given back.
 * - renew() is the watchdog's liveness probe: one cheap statement on the pinned connection that confirms
 *   the database still holds the lock. A dead connection is reported as SESSION_LOST, or RELEASED_BY_ADMIN
 *   when forceRelease marked the row for this owner.
 * - A connection that may still hold a lock is never returned to the pool: it is evicted/aborted.
 * - `holds` lets close() (a crash, for the TCK) end every session at once.
 */
final class SessionBackend extends JdbcLockBackend {

    private final SessionStatements sql;
    private final SessionWaiting waiting;
    private final SessionReadWrite readWrite; // null unless PostgreSQL
    private final SessionAdmin admin;
    private final Set<SessionHold> holds = ConcurrentHashMap.newKeySet();

    SessionBackend(Builder b, Dialect dialect) {
        super(b, dialect);
        this.sql = SessionStatements.of(table, dialect);
        this.waiting = new SessionWaiting(sql, description());
        this.readWrite = sql instanceof PgSessionStatements pg ? new SessionReadWrite(this, pg, waiting) : null;
        this.admin = new SessionAdmin(this, sql);
    }

    @Override
    public JdbcMode mode() {
        return JdbcMode.SESSION;
    }

    @Override
    public Set<Capability> capabilities() {
        return capabilities(dialect, JdbcMode.SESSION);
    }

    @Override
    public String refusal(Capability capability) {
        if (capability == Capability.SEMAPHORE) {
            return "session mode binds each grant to a database session and has no counted database lock; semaphores"
                    + " are offered in lease mode (mode=lease, the default)";
        }
        return capability == Capability.READ_WRITE && readWrite == null
                ? "session mode on " + dialect + " has no shared database lock; read-write locks are offered in lease"
                        + " mode (mode=lease, the default), and in session mode on PostgreSQL"
                : null;
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        try {
            return acquire(request, Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("unreachable: a try does not wait", e);
        }
    }

    @Override
    public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        if (request.kind() != GrantKind.EXCLUSIVE) {
            return readWrite.acquire(request, maxWait); // the core asks only for what capabilities() claims
        }
        if (sql.runsOnCallerThread() && !maxWait.isZero()) {
            // embedded H2 runs statements on the caller's thread and may swallow an interrupt inside them
            return waiting.offThread(cancelled -> attempt(request, maxWait, cancelled), this::release);
        }
        return attempt(request, maxWait, new AtomicBoolean());
    }

    private AcquireResult attempt(AcquireRequest request, Duration maxWait, AtomicBoolean cancelled)
            throws InterruptedException {
        LockKey k = key(request.name());
        long start = System.nanoTime();
        Connection c = null;
        boolean keep = false;
        boolean waited = false;
        try {
            c = connections.borrow();
            sql.pin(c);
            long token = sql.tryLock(c, k, request.owner());
            if (token < 0) {
                AcquireResult other = admin.holderOrMine(request, k, start);
                if (other instanceof Grant || maxWait.isZero() || cancelled.get()) {
                    return other;
                }
                waited = true;
                token = waiting.inDatabase(
                        c,
                        k,
                        request.owner(),
                        maxWait,
                        cancelled,
                        sql.runsOnCallerThread(),
                        abandoned -> putBackAfterWait(abandoned, k, request.owner()));
                if (token == SessionWaiting.HANDED_OFF) {
                    c = null; // the waiting thread returns it
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException(
                            "interrupted while waiting for lock '" + request.name() + "' on " + description());
                }
                if (token < 0) {
                    return other;
                }
            }
            SessionHold hold = SessionHold.pinned(k, c);
            holds.add(hold);
            keep = true;
            return new Grant(request.name(), request.owner(), token, validUntil(start, request.lease()), hold);
        } catch (SQLException e) {
            throw connections.unavailable("acquire", request.name(), e);
        } finally {
            if (!keep && c != null) {
                if (waited) {
                    putBackAfterWait(c, k, request.owner());
                } else {
                    putBack(c);
                }
            }
        }
    }

    /**
     * A wait that was cancelled or failed may have taken the database lock in the same instant (advisory and
     * user locks outlive a failed statement): let go of it before the connection returns to the pool, or
     * discard the connection if that cannot be checked.
     */
    private void putBackAfterWait(Connection c, LockKey k, String owner) {
        putBackAfterWait(c, k, owner, () -> sql.unlock(c, k));
    }

    /** Lets go of one database lock; false if the session held none. */
    interface LetGo {
        boolean run() throws SQLException;
    }

    void putBackAfterWait(Connection c, LockKey k, String owner, LetGo letGo) {
        if (sql.lockOutlivesStatement()) {
            try {
                if (sql.stillHeld(c, k, owner) && !letGo.run()) {
                    connections.discard(c);
                    return;
                }
            } catch (SQLException | RuntimeException e) {
                connections.discard(c);
                return;
            }
        }
        putBack(c);
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        SessionHold hold = (SessionHold) grant.state();
        long start = System.nanoTime();
        if (hold.isAdopted()) {
            return admin.adoptedStillHeld(grant)
                    ? RenewResult.renewed(validUntil(start, lease))
                    : RenewResult.notHeld(admin.lostReason(grant));
        }
        hold.lock.lock();
        try {
            if (hold.ended) {
                return RenewResult.notHeld();
            }
            boolean held;
            try {
                held = sql.stillHeld(hold.connection, hold.key, grant.owner());
            } catch (SQLException e) {
                if (isAlive(hold.connection)) {
                    throw connections.unavailable("renew", grant.name(), e);
                }
                held = false;
            }
            if (held) {
                return RenewResult.renewed(validUntil(start, lease));
            }
            end(hold, true); // the lock vanished under a live connection: do not reuse it
        } finally {
            hold.lock.unlock();
        }
        return RenewResult.notHeld(admin.lostReason(grant));
    }

    private static boolean isAlive(Connection c) {
        try {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public boolean release(Grant grant) {
        SessionHold hold = (SessionHold) grant.state();
        if (hold.isAdopted()) {
            // held by another connection of this owner (a retried request): only ending that session frees it
            try {
                if (!admin.adoptedStillHeld(grant)) {
                    return false;
                }
                withConnection(c -> {
                    sql.kill(c, hold.adoptedSession);
                    return null;
                });
                return true;
            } catch (SQLException e) {
                throw connections.unavailable("release", grant.name(), e);
            }
        }
        hold.lock.lock();
        try {
            if (hold.ended) {
                return false;
            }
            boolean held;
            try {
                held = grant.kind().type() == GrantKind.Type.READ
                        ? readWrite.unlock(hold.connection, hold.key, false)
                        : sql.unlock(hold.connection, hold.key);
            } catch (SQLException e) {
                held = false; // the session is gone or unusable: discarding it frees whatever it held
                end(hold, true);
                return false;
            }
            end(hold, !held);
            return held;
        } finally {
            hold.lock.unlock();
        }
    }

    /** Gives a hold's connection back (clean) or discards it. Caller holds hold.lock. */
    private void end(SessionHold hold, boolean discard) {
        hold.ended = true;
        holds.remove(hold);
        if (discard) {
            connections.discard(hold.connection);
        } else {
            putBack(hold.connection, true);
        }
    }

    void putBack(Connection c) {
        putBack(c, false);
    }

    @Override
    public Grant downgrade(Grant write, AcquireRequest read) {
        if (readWrite == null) {
            throw new UnsupportedOperationException("downgrading a write lock is not supported by " + description());
        }
        return readWrite.downgrade(write, read);
    }

    Connection borrowPinned() throws SQLException {
        Connection c = connections.borrow();
        try {
            sql.pin(c);
            return c;
        } catch (SQLException | RuntimeException e) {
            connections.discard(c);
            throw e;
        }
    }

    void track(SessionHold hold) {
        holds.add(hold);
    }

    void untrack(SessionHold hold) {
        holds.remove(hold);
    }

    private void putBack(Connection c, boolean unlocked) {
        try {
            sql.unpin(c, unlocked);
            connections.giveBack(c);
        } catch (SQLException e) {
            connections.discard(c);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return admin.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return admin.list(prefix);
    }

    @Override
    public boolean forceRelease(String name) {
        return admin.forceRelease(name);
    }

    /** Database session ids of the connections holding this backend's locks (for fault injection in tests). */
    List<Long> sessionIds() throws SQLException {
        List<Long> ids = new ArrayList<>();
        for (SessionHold h : holds) {
            h.lock.lock();
            try {
                if (!h.ended) {
                    ids.add(sql.sessionId(h.connection));
                }
            } finally {
                h.lock.unlock();
            }
        }
        return ids;
    }

    /** Ends a database session server-side (fault injection and admin use). */
    void killSession(long session) throws SQLException {
        withConnection(c -> {
            sql.kill(c, session);
            return null;
        });
    }

    interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    <T> T withConnection(SqlWork<T> work) throws SQLException {
        Connection c = connections.borrow();
        try {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return work.run(c);
        } finally {
            connections.giveBack(c);
        }
    }

    @Override
    public void close() {
        for (SessionHold h : holds) {
            // ends the session without waiting for a renewal that may hold the lock: the server frees the lock
            connections.discard(h.connection);
            holds.remove(h);
        }
        waiting.close();
        super.close();
    }
}

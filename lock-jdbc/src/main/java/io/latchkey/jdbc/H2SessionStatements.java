package io.latchkey.jdbc;

import io.latchkey.LockInfo;
import io.latchkey.spi.Deadlines;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/*
 * Session mode on H2: a row lock held by an open transaction (see SessionStatements). The try and the wait run
 * the same UPDATE; they differ in H2's LOCK_TIMEOUT, which is cached per physical connection so that steady
 * state sends no SET. H2 ignores Statement.cancel while a statement waits for a row lock, so a wait runs in
 * slices that each wait inside H2 (woken at the holder's commit) and check the cancel flag between them.
 * Release is ROLLBACK; other sessions read the holder with READ UNCOMMITTED. The lock timeout cache is a
 * synchronized weak map; everything else is SQL text, so the class is safe to share between threads.
 */
final class H2SessionStatements extends SessionStatements {
    private static final int H2_LOCK_TIMEOUT = 50200;
    /** How long a forced release's mark waits for the row after the holder's session ended. */
    private static final int H2_FORCE_MARK_MILLIS = 500;
    /** H2 reads LOCK_TIMEOUT 0 as "the default" (seconds): 1 ms is its shortest real wait. */
    private static final int H2_TRY_MILLIS = 1;

    private static final int H2_WAIT_SLICE_MILLIS = 100;

    private final String lockSql;
    private final String stillHeldSql;
    private final String holderSql;
    private final String listSql;
    private final String insertRowSql;
    /** The LOCK_TIMEOUT last set on each physical connection, so steady state sends no SET. */
    private final Map<Connection, Integer> lockTimeouts = Collections.synchronizedMap(new WeakHashMap<>());

    H2SessionStatements(String table) {
        super(table, Dialect.H2);
        lockSql = "SELECT token FROM FINAL TABLE (UPDATE " + table + " SET owner = ?, token = NEXT VALUE FOR " + table
                + "_token_seq, acquired_at = CURRENT_TIMESTAMP, holder_session = SESSION_ID(), released_by = NULL"
                + " WHERE ns = ? AND name = ?)";
        stillHeldSql = "SELECT owner FROM " + table + " WHERE ns = ? AND name = ?";
        holderSql = "SELECT owner, token, acquired_at, holder_session FROM " + table
                + " WHERE ns = ? AND name = ? AND owner IS NOT NULL";
        listSql = "SELECT name, owner, token, acquired_at, holder_session FROM " + table
                + " WHERE ns = ? AND name LIKE ? ESCAPE '!' AND owner IS NOT NULL ORDER BY name";
        insertRowSql = "INSERT INTO " + table + " (ns, name, token) VALUES (?, ?, 0)";
    }

    /** The lock is the open transaction: the pinned connection leaves autocommit. */
    @Override
    void pin(Connection c) throws SQLException {
        c.setAutoCommit(false);
    }

    @Override
    void unpin(Connection c, boolean transactionEnded) throws SQLException {
        if (!transactionEnded) {
            c.rollback();
        }
        c.setAutoCommit(true);
    }

    /** Embedded H2 runs statements on the caller's thread. */
    @Override
    boolean runsOnCallerThread() {
        return true;
    }

    /** The row lock ends with the transaction, which unpin rolls back. */
    @Override
    boolean lockOutlivesStatement() {
        return false;
    }

    /** The row is locked by the holder until its session ends: end it first, then mark the row. */
    @Override
    void forceOut(Connection c, LockKey k, Holder h) throws SQLException {
        kill(c, h.session());
        setLockTimeout(c, H2_FORCE_MARK_MILLIS);
        try {
            markReleasedBy(c, k, h.owner());
        } catch (SQLException e) {
            if (!isLockConflict(e)) {
                throw e;
            }
            // The row is locked again: a waiter blocked on it took it the moment the holder's session ended. The
            // forced release took effect, and the new holder's UPDATE cleared released_by anyway (the old holder
            // learns EXPIRED instead of RELEASED_BY_ADMIN only in this race). Before this, forceRelease failed
            // with H2's lock timeout whenever a waiter was queued (the TCK's nativeWait_forcedReleaseWakesAWaiter).
            if (!c.getAutoCommit()) {
                c.rollback();
            }
            Optional<Holder> now = holder(c, k);
            if (now.isPresent() && now.get().session() == h.session()) {
                throw e; // still the old holder's: the kill did not take
            }
        }
    }

    @Override
    long tryLock(Connection c, LockKey k, String owner) throws SQLException {
        return lock(c, k, owner, H2_TRY_MILLIS, null);
    }

    @Override
    long waitLock(
            Connection c,
            LockKey k,
            String owner,
            long waitMillis,
            AtomicReference<Statement> running,
            AtomicBoolean cancelled)
            throws SQLException {
        // wait in slices, so that a cancellation is seen within one slice (each slice still waits inside H2)
        long deadline = Deadlines.after(System.nanoTime(), java.time.Duration.ofMillis(waitMillis));
        for (; ; ) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0 || cancelled.get()) {
                return -1;
            }
            long token = lock(c, k, owner, (int) Math.min(H2_WAIT_SLICE_MILLIS, left), running);
            if (token >= 0) {
                return token;
            }
        }
    }

    private long lock(Connection c, LockKey k, String owner, int lockTimeoutMillis, AtomicReference<Statement> running)
            throws SQLException {
        setLockTimeout(c, lockTimeoutMillis);
        try {
            for (int attempt = 0; attempt < 2; attempt++) {
                try (PreparedStatement ps = c.prepareStatement(lockSql)) {
                    if (running != null) {
                        running.set(ps);
                    }
                    ps.setString(1, owner);
                    ps.setString(2, k.namespace());
                    ps.setString(3, k.name());
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            return rs.getLong(1);
                        }
                    }
                } catch (SQLException e) {
                    c.rollback();
                    if (isLockConflict(e)) {
                        return -1;
                    }
                    throw e;
                } finally {
                    if (running != null) {
                        running.set(null);
                    }
                }
                // no row yet: create it (committed, unowned) and lock it on the second pass
                try (PreparedStatement ins = c.prepareStatement(insertRowSql)) {
                    ins.setString(1, k.namespace());
                    ins.setString(2, k.name());
                    ins.executeUpdate();
                    c.commit();
                } catch (SQLException e) {
                    c.rollback();
                    if (!isDuplicate(e)) {
                        throw e;
                    }
                }
            }
            return -1;
        } finally {
            if (lockTimeoutMillis != H2_TRY_MILLIS) {
                setLockTimeout(c, H2_TRY_MILLIS);
            }
        }
    }

    private void setLockTimeout(Connection c, int millis) throws SQLException {
        Connection physical = c.isWrapperFor(Connection.class) ? c.unwrap(Connection.class) : c;
        Integer current = lockTimeouts.get(physical);
        if (current == null || current != millis) {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCK_TIMEOUT " + millis);
            }
            lockTimeouts.put(physical, millis);
        }
    }

    /** Lock timeouts, deadlocks and concurrent-update conflicts: someone else has the lock. */
    private static boolean isLockConflict(SQLException e) {
        String state = e.getSQLState();
        return e.getErrorCode() == H2_LOCK_TIMEOUT
                || e.getErrorCode() == 90131
                || "40001".equals(state)
                || "HYT00".equals(state)
                || "55P03".equals(state);
    }

    private static boolean isDuplicate(SQLException e) {
        return "23505".equals(e.getSQLState())
                || (e.getSQLState() != null && e.getSQLState().startsWith("23"));
    }

    @Override
    boolean stillHeld(Connection c, LockKey k, String owner) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(stillHeldSql)) {
            ps.setString(1, k.namespace());
            ps.setString(2, k.name());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && owner.equals(rs.getString(1));
            }
        }
    }

    @Override
    boolean unlock(Connection c, LockKey k) throws SQLException {
        c.rollback(); // ends the transaction and with it the row lock; throws if the session is gone
        return true;
    }

    @Override
    Optional<Holder> holder(Connection c, LockKey k) throws SQLException {
        int isolation = c.getTransactionIsolation();
        c.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED);
        try {
            return readHolder(c, holderSql, k, (ps, key) -> {});
        } finally {
            c.setTransactionIsolation(isolation);
        }
    }

    /** A row with an owner is held: its owner is written only inside the holding (uncommitted) transaction. */
    @Override
    List<LockInfo> list(Connection c, String table, String namespace, String prefix) throws SQLException {
        int isolation = c.getTransactionIsolation();
        c.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED);
        List<Candidate> rows;
        try {
            rows = candidates(c, listSql, namespace, prefix);
        } finally {
            c.setTransactionIsolation(isolation);
        }
        List<LockInfo> out = new ArrayList<>();
        for (Candidate row : rows) {
            Holder h = row.holder();
            out.add(info(row.name(), h.owner(), h.token(), h.acquiredAt(), null));
        }
        return out;
    }

    @Override
    long sessionId(Connection c) throws SQLException {
        return sessionId(c, "SELECT SESSION_ID()");
    }

    @Override
    void kill(Connection c, long session) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT ABORT_SESSION(CAST(? AS INTEGER))")) {
            ps.setLong(1, session);
            ps.executeQuery().close();
        }
    }
}

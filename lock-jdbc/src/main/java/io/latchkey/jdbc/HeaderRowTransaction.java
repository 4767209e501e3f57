package io.latchkey.jdbc;

import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import java.sql.Connection;
import java.sql.SQLException;

/*
 * The one acquisition shape of the lease-mode primitives that several owners may hold (semaphores, read-write
 * locks): a transaction that starts by locking the primitive's header row (so acquirers of one name take turns),
 * decides, and commits. If the header row does not exist yet, it is created in its own statement and the
 * transaction runs once more. A conflict that a stricter isolation level or H2's lock timeout reports is busy,
 * never a grant; anything else is the store being unavailable.
 */
final class HeaderRowTransaction {
    /** The transaction's body: null if the header row is missing, else the answer to commit. */
    interface Body {
        AcquireResult run(Connection c) throws SQLException;
    }

    /** Creates the header row (autocommit). */
    interface CreateHeader {
        void create(Connection c) throws SQLException;
    }

    private HeaderRowTransaction() {}

    /** The grant an acquisition's transaction made: token from the header row, validity from before the request. */
    static Grant granted(AcquireRequest request, long token, long startNanos) {
        return new Grant(
                request.name(),
                request.owner(),
                token,
                JdbcLockBackend.validUntil(startNanos, request.lease()),
                null,
                request.kind());
    }

    static AcquireResult acquire(
            JdbcConnections connections, Dialect dialect, String op, String name, Body body, CreateHeader header) {
        Connection c = null;
        try {
            c = connections.borrow();
            for (int attempt = 0; ; attempt++) {
                AcquireResult r = once(c, body);
                if (r != null || attempt > 0) {
                    return r != null ? r : Busy.UNKNOWN;
                }
                c.setAutoCommit(true);
                header.create(c); // first use of this name: then look again
            }
        } catch (SQLException e) {
            if ((dialect == Dialect.H2 && LeaseBackend.isConflict(e)) || isSerializationFailure(e)) {
                return Busy.UNKNOWN; // another acquirer held the header row too long, or changed it under us
            }
            throw connections.unavailable(op, name, e);
        } finally {
            connections.giveBack(c);
        }
    }

    private static AcquireResult once(Connection c, Body body) throws SQLException {
        c.setAutoCommit(false);
        boolean done = false;
        try {
            AcquireResult r = body.run(c);
            if (r == null) {
                return null;
            }
            c.commit();
            done = true;
            return r;
        } finally {
            if (!done) {
                rollbackQuietly(c);
            }
            c.setAutoCommit(true);
        }
    }

    /** 40001 / 40P01: a stricter isolation level than READ COMMITTED (or a deadlock) refused the transaction. */
    private static boolean isSerializationFailure(SQLException e) {
        return "40001".equals(e.getSQLState()) || "40P01".equals(e.getSQLState());
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is broken: the pool finds out when it is given back; nothing was committed
        }
    }
}

package io.latchkey.jdbc;

import io.latchkey.BackendUnavailableException;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.RenewResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Read-write locks in lease mode (ReadWriteStatements for the SQL). An acquisition is one HeaderRowTransaction:
 * with the lock's header row locked, it reads the live readers, writers and other writers' intents, and grants a
 * read iff no writer holds and no writer waits, a write iff nobody holds. A write that must wait records its intent
 * (until its lease), which keeps new readers out; the core withdraws it when the writer gives up. Renew, release
 * and withdraw are one statement each on the owner's own row.
 *
 * Stateless: every operation borrows a connection for just that operation, as LeaseBackend does.
 */
final class LeaseReadWrite {
    private static final Logger log = LoggerFactory.getLogger(LeaseReadWrite.class);

    private final JdbcConnections connections;
    private final ReadWriteStatements sql;
    private final String description;

    LeaseReadWrite(JdbcConnections connections, ReadWriteStatements sql, String description) {
        this.connections = connections;
        this.sql = sql;
        this.description = description;
    }

    AcquireResult tryAcquire(AcquireRequest request, LockKey k) {
        long start = System.nanoTime();
        long leaseMicros = JdbcLockBackend.micros(request.lease());
        return HeaderRowTransaction.acquire(
                connections,
                sql.dialect,
                "acquire",
                request.name(),
                c -> decide(c, request, k, leaseMicros, start),
                c -> sql.createHeader(c, k));
    }

    private AcquireResult decide(Connection c, AcquireRequest request, LockKey k, long leaseMicros, long start)
            throws SQLException {
        long token = sql.lockHeader(c, k);
        if (token < 0) {
            return null;
        }
        boolean write = request.kind().type() == GrantKind.Type.WRITE;
        char side = write ? 'w' : 'r';
        ReadWriteStatements.State s = sql.state(c, k, request.owner(), side);
        if (s.expired() > 0) {
            sql.dropExpired(c, k); // rows of holders or writers that died or gave up: clean up while locked
        }
        if (s.mineToken() >= 0) { // a retried request: the grant it already has
            sql.extendMine(c, k, request.owner(), leaseMicros);
            return HeaderRowTransaction.granted(request, s.mineToken(), start);
        }
        boolean free = write ? s.readers() == 0 && s.writers() == 0 : s.writers() == 0 && s.intents() == 0;
        if (!free) {
            if (write) { // new readers wait for this writer from now on
                sql.dropIntent(c, k, request.owner());
                sql.addRow(c, k, request.owner(), 'i', 0, leaseMicros);
            }
            return Busy.UNKNOWN;
        }
        if (write) {
            sql.dropIntent(c, k, request.owner());
        }
        sql.bumpToken(c, k, token + 1);
        sql.addRow(c, k, request.owner(), side, token + 1, leaseMicros);
        return HeaderRowTransaction.granted(request, token + 1, start);
    }

    /** The answer of a downgrade whose write grant the store no longer holds (distinct from a conflict's Busy). */
    private static final Busy NOT_HELD = new Busy(null, -1, null);

    /**
     * One transaction on the locked header row: the writer's row goes and the reader's row comes with the next
     * token, so no other acquirer sees the lock free in between. Null if the write grant was gone.
     */
    Grant downgrade(Grant write, AcquireRequest read, LockKey k) {
        long start = System.nanoTime();
        long leaseMicros = JdbcLockBackend.micros(read.lease());
        AcquireResult r = HeaderRowTransaction.acquire(
                connections,
                sql.dialect,
                "downgrade",
                write.name(),
                c -> {
                    long token = sql.lockHeader(c, k);
                    if (token < 0 || !sql.release(c, k, write.owner(), write.fencingToken())) {
                        return NOT_HELD;
                    }
                    sql.bumpToken(c, k, token + 1);
                    sql.addRow(c, k, read.owner(), 'r', token + 1, leaseMicros);
                    return HeaderRowTransaction.granted(read, token + 1, start);
                },
                c -> {});
        if (r == NOT_HELD) {
            return null;
        }
        if (r instanceof Busy) {
            throw new BackendUnavailableException(
                    "could not downgrade write lock '" + write.name() + "' on " + description
                            + ": another transaction kept the lock's header row; the write grant is unchanged",
                    write.name(),
                    description,
                    null);
        }
        return (Grant) r;
    }

    RenewResult renew(Grant grant, Duration lease, LockKey k) {
        long start = System.nanoTime();
        return connections.inAutocommit(
                "renew",
                grant.name(),
                c -> sql.renew(c, k, grant.owner(), grant.fencingToken(), JdbcLockBackend.micros(lease))
                        ? RenewResult.renewed(JdbcLockBackend.validUntil(start, lease))
                        : RenewResult.notHeld());
    }

    boolean release(Grant grant, LockKey k) {
        return connections.inAutocommit(
                "release", grant.name(), c -> sql.release(c, k, grant.owner(), grant.fencingToken()));
    }

    /** A writer gave up: its intent goes now; a failure only leaves it to expire with its lease. */
    void withdraw(AcquireRequest request, LockKey k) {
        try {
            connections.inAutocommit("withdraw", request.name(), c -> sql.dropIntent(c, k, request.owner()));
        } catch (RuntimeException e) {
            log.debug("withdrawing the waiting writer of '{}' on {} failed", request.name(), description, e);
        }
    }
}

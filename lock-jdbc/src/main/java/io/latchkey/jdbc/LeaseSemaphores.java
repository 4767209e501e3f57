package io.latchkey.jdbc;

import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.SemaphoreCounts;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/*
 * Semaphores in lease mode (SemaphoreStatements for the SQL). An acquisition is one transaction that
 * locks the semaphore's header row, counts the live holders (cleaning up expired rows if it saw any) and, if n more
 * permits fit, bumps the token and adds a holder row: acquirers of one semaphore take turns on the header row, so two of them can never
 * both take the last permit, and each sees every holder committed before it. Renew and release are one statement
 * each on the holder's own row. The first acquisition creates the header row with its permit count; a later one
 * with another count is refused before anything is written.
 *
 * Isolation: the header row's lock orders acquirers whatever the level. PostgreSQL and H2 run at the pool's level
 * (READ COMMITTED by default, where each statement sees what committed before it; a stricter level makes a
 * concurrent acquirer fail with a serialization error, which is busy, never an over-grant); MariaDB/MySQL count
 * with a locking read (FOR UPDATE), which reads the latest committed rows even under REPEATABLE READ.
 *
 * Stateless: every operation borrows a connection for just that operation, as LeaseBackend does.
 */
final class LeaseSemaphores {
    private final JdbcConnections connections;
    private final SemaphoreStatements sql;
    private final String description;

    LeaseSemaphores(JdbcConnections connections, SemaphoreStatements sql, String description) {
        this.connections = connections;
        this.sql = sql;
        this.description = description;
    }

    AcquireResult tryAcquire(AcquireRequest request, LockKey k) {
        GrantKind kind = request.kind();
        long start = System.nanoTime();
        long leaseMicros = JdbcLockBackend.micros(request.lease());
        return HeaderRowTransaction.acquire(
                connections,
                sql.dialect,
                "acquire permits of",
                request.name(),
                c -> decide(c, request, k, kind, leaseMicros, start),
                c -> sql.createHeader(c, k, kind.limit()));
    }

    /** Inside the transaction; null if the semaphore has no header row yet. */
    private AcquireResult decide(
            Connection c, AcquireRequest request, LockKey k, GrantKind kind, long leaseMicros, long start)
            throws SQLException {
        SemaphoreStatements.Header header = sql.lockHeader(c, k);
        if (header == null) {
            return null;
        }
        if (header.limit() != kind.limit()) {
            throw otherCount(request.name(), header.limit(), kind.limit());
        }
        SemaphoreStatements.Usage usage = sql.usage(c, k, request.owner()); // expired holders never count
        if (usage.expired() > 0) {
            sql.dropExpired(c, k); // rows of holders that died or stopped renewing: clean up while locked
        }
        if (usage.mineToken() >= 0) { // a retried request: the grant it already has
            sql.extendMine(c, k, request.owner(), leaseMicros);
            return HeaderRowTransaction.granted(request, usage.mineToken(), start);
        }
        if (usage.used() + kind.permits() > header.limit()) {
            return Busy.UNKNOWN;
        }
        long token = header.token() + 1;
        sql.addHolder(c, k, request.owner(), kind.permits(), token, leaseMicros);
        return HeaderRowTransaction.granted(request, token, start);
    }

    RenewResult renew(Grant grant, Duration lease, LockKey k) {
        long start = System.nanoTime();
        return connections.inAutocommit(
                "renew permits of",
                grant.name(),
                c -> sql.renew(c, k, grant.owner(), grant.fencingToken(), JdbcLockBackend.micros(lease))
                        ? RenewResult.renewed(JdbcLockBackend.validUntil(start, lease))
                        : RenewResult.notHeld());
    }

    boolean release(Grant grant, LockKey k) {
        return connections.inAutocommit(
                "release permits of", grant.name(), c -> sql.release(c, k, grant.owner(), grant.fencingToken()));
    }

    int availablePermits(String name, int limit, LockKey k) {
        int[] countAndUsed = connections.inAutocommit("count the permits of", name, c -> sql.available(c, k));
        if (countAndUsed == null) {
            return limit;
        }
        if (countAndUsed[0] != limit) {
            throw otherCount(name, countAndUsed[0], limit);
        }
        return limit - countAndUsed[1];
    }

    private IllegalArgumentException otherCount(String name, int stored, int asked) {
        return SemaphoreCounts.conflict(name, description, stored, asked);
    }
}

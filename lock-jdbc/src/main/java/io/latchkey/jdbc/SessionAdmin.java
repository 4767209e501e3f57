package io.latchkey.jdbc;

import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/*
 * What session mode reads through connections other than a grant's own: who holds a lock (the row joined with the
 * database's own lock table, since a row alone may outlive its session), whether a retried request's grant is held
 * by another session of its owner (adopted), why a grant was lost, the locks under a prefix, and an operator's
 * forced release (mark the row, end the holder's session). Each borrows a connection for the one call. No state of its own.
 */
final class SessionAdmin {
    private final SessionBackend backend;
    private final SessionStatements sql;

    SessionAdmin(SessionBackend backend, SessionStatements sql) {
        this.backend = backend;
        this.sql = sql;
    }

    Optional<LockInfo> inspect(String name) {
        try {
            return backend.withConnection(c -> sql.holder(c, backend.key(name)))
                    .map(h -> new LockInfo(
                            name, h.owner(), h.token(), Optional.ofNullable(h.acquiredAt()), Optional.empty()));
        } catch (SQLException e) {
            throw backend.connections.unavailable("inspect", name, e);
        }
    }

    List<LockInfo> list(String prefix) {
        try {
            return backend.withConnection(c -> sql.list(c, backend.table, backend.namespace, prefix));
        } catch (SQLException e) {
            throw backend.connections.unavailable("list locks starting with '" + prefix + "' on", null, e);
        }
    }

    boolean forceRelease(String name) {
        LockKey k = backend.key(name);
        try {
            return backend.withConnection(c -> {
                Optional<SessionStatements.Holder> h = sql.holder(c, k);
                if (h.isEmpty()) {
                    return false;
                }
                sql.forceOut(c, k, h.get());
                return true;
            });
        } catch (SQLException e) {
            throw backend.connections.unavailable("force the release of", name, e);
        }
    }

    /** Busy with the holder, or this owner's own grant when a retried request finds it (held on another session). */
    AcquireResult holderOrMine(AcquireRequest request, LockKey k, long start) throws SQLException {
        Optional<SessionStatements.Holder> h = backend.withConnection(c -> sql.holder(c, k));
        if (h.isEmpty()) {
            return Busy.UNKNOWN;
        }
        if (h.get().owner() != null && h.get().owner().equals(request.owner())) {
            return new Grant(
                    request.name(),
                    request.owner(),
                    h.get().token(),
                    JdbcLockBackend.validUntil(start, request.lease()),
                    SessionHold.adopted(k, h.get().session()));
        }
        return new Busy(h.get().owner(), h.get().token(), null);
    }

    /** Why a grant whose session ended is gone: an administrator's forced release, or the session itself. */
    LockLoss.Reason lostReason(Grant grant) {
        try {
            String by = backend.withConnection(c -> sql.releasedBy(c, backend.key(grant.name())));
            return grant.owner().equals(by) ? LockLoss.Reason.RELEASED_BY_ADMIN : LockLoss.Reason.SESSION_LOST;
        } catch (SQLException | RuntimeException e) {
            return LockLoss.Reason.SESSION_LOST;
        }
    }

    boolean adoptedStillHeld(Grant grant) {
        SessionHold hold = (SessionHold) grant.state();
        try {
            Optional<SessionStatements.Holder> h = backend.withConnection(c -> sql.holder(c, hold.key));
            return h.isPresent()
                    && grant.owner().equals(h.get().owner())
                    && h.get().token() == grant.fencingToken()
                    && h.get().session() == hold.adoptedSession;
        } catch (SQLException e) {
            throw backend.connections.unavailable("renew", grant.name(), e);
        }
    }
}

package io.latchkey.jdbc;

import java.sql.Connection;
import java.util.concurrent.locks.ReentrantLock;

/*
 * The backend-private state of one session-mode grant (Grant.state): the pinned connection whose database
 * session holds the lock, or, for a grant recognised on a retry from another connection ("adopted"), the
 * id of the database session that holds it.
 *
 * Concurrency design: the core may run a renewal and a release of the same grant at once; a JDBC
 * connection must not be used by two threads at once, so every use of `connection` happens under `lock`.
 * `ended` (guarded by `lock`) records that the connection has gone back to the pool or been discarded.
 */
final class SessionHold {
    final LockKey key;
    final Connection connection;
    final long adoptedSession;
    final ReentrantLock lock = new ReentrantLock();
    boolean ended;

    private SessionHold(LockKey key, Connection connection, long adoptedSession) {
        this.key = key;
        this.connection = connection;
        this.adoptedSession = adoptedSession;
    }

    static SessionHold pinned(LockKey key, Connection connection) {
        return new SessionHold(key, connection, -1);
    }

    static SessionHold adopted(LockKey key, long session) {
        return new SessionHold(key, null, session);
    }

    boolean isAdopted() {
        return connection == null;
    }
}

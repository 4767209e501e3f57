package io.latchkey.jdbc;

/**
 * How a JDBC lock is held.
 *
 * <ul>
 *   <li>{@link #LEASE} (default): one row per name; a grant is a row with an owner, a fencing token and an
 *       expiry judged by the database's clock. No connection is held between statements.</li>
 *   <li>{@link #SESSION}: the lock is a database lock bound to a connection (PostgreSQL advisory lock,
 *       MySQL/MariaDB {@code GET_LOCK}, H2 row lock in an open transaction). The database queues waiters
 *       and frees the lock when the connection dies. Each held lock pins one pooled connection.</li>
 * </ul>
 */
public enum JdbcMode {
    /** One row per name, with an expiry judged by the database's clock (the default). */
    LEASE,
    /** A database lock bound to a pinned connection. */
    SESSION
}

package io.latchkey.jdbc;

import io.latchkey.LockInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/*
 * The statements of lease mode, one per operation, every one judged by the database's clock:
 * - acquire: one conditional upsert that grants only an absent, released or expired row (or re-grants the
 *   same owner's live row, for retried requests) and bumps the row's fencing counter. PostgreSQL:
 *   INSERT ... ON CONFLICT DO UPDATE ... WHERE, whose CTE also reports the holder when busy; MariaDB/MySQL:
 *   INSERT ... ON DUPLICATE KEY UPDATE with the token handed back through LAST_INSERT_ID(expr) in the OK
 *   packet (0 = busy); H2: MERGE ... USING inside FINAL TABLE.
 * - renew / release: one UPDATE each, conditional on owner, token and the row still being live.
 * - release keeps the row and its counter, so tokens never go back.
 * - hand-over (PostgreSQL): one UPDATE that is the release when another client is queued in the row, and otherwise
 *   gives the row to this client's next owner (owner changed, token + 1, a new lease): a hand-off inside one client
 *   in one round trip instead of a release and a new attempt.
 * Stateless apart from SQL text; safe to share between threads.
 */
final class LeaseStatements extends SqlTable {
    /** What an acquire statement found. */
    record Outcome(boolean granted, long token, String holder, long holderToken, long remainingMicros) {
        static final Outcome BUSY_UNKNOWN = new Outcome(false, -1, null, -1, -1);
    }

    /**
     * PostgreSQL: how long a released lock with waiters queued is kept for the first of them (the one the release
     * notified) before anyone may take it; a head that does not come in time (its process paused) is passed by.
     */
    static final long HEAD_GRACE_MILLIS = 200;

    private final String acquireSql;
    /** PostgreSQL: the acquire statement that keeps a released lock for the queue's head; else acquireSql. */
    private final String fairAcquireSql;
    private final int acquireParameters;
    private final int fairAcquireParameters;
    private final String renewSql;
    private final String releaseSql;
    private final String forceSql;
    private final String inspectSql;
    private final String listSql;
    private final String leaveSql;
    private final String holderSql;
    /** PostgreSQL: the release that hands the row to this client's next owner when no other client is queued. */
    private final String handOverSql;

    /** Counts the rows of CTE r and sends one NOTIFY per row that names a next waiter (PostgreSQL). */
    private static final String NOTIFY_NEXT = "SELECT count(*) FROM r, LATERAL (SELECT CASE WHEN r.next IS NOT NULL"
            + " THEN pg_notify('" + "latchkey_w" + "' || r.next, r.ns || '/' || r.name) END) n";

    /**
     * PostgreSQL's acquire: parameters ns, name, owner, lease micros, then the waiter's pid (or null) as often as the
     * statement needs it, then owner, ns, name, owner. A busy attempt that may wait (pid given) joins the row's queue
     * in the same statement, so a release that commits after it sees the waiter; a grant leaves the queue.
     *
     * <p>{@code fair}: a release with waiters queued leaves expires_at at its own time, and for HEAD_GRACE_MILLIS
     * only the first waiter (the one it notified) may take the row. Without that, the releasing client, whose next
     * attempt is sent before the notified waiter has even been told (PostgreSQL delivers a NOTIFY about 1 ms after
     * the commit), took the lock again and again, and a queued waiter went without it for seconds. Not fair
     * (Fairness.NONE): anyone may take a free row.
     */
    private static String postgresAcquire(String table, String plusLease, boolean fair) {
        String me = "CAST(? AS INTEGER)";
        String free = "l.expires_at IS NULL OR l.expires_at <= now()";
        String takeable = fair
                ? "(" + free + ") AND (l.expires_at IS NULL OR l.expires_at <= now() - interval '" + HEAD_GRACE_MILLIS
                        + " milliseconds' OR coalesce(cardinality(l.waiting), 0) = 0 OR l.waiting[1] = " + me + ")"
                : free;
        String grantable = "(" + takeable + " OR l.owner = EXCLUDED.owner)";
        String mineLive = "l.owner = EXCLUDED.owner AND l.expires_at > now()";
        return "WITH up AS (INSERT INTO " + table
                + " AS l (ns, name, owner, token, acquired_at, expires_at)"
                + " VALUES (?, ?, ?, 1, now(), " + plusLease + ")"
                + " ON CONFLICT (ns, name) DO UPDATE SET"
                + " token = CASE WHEN " + grantable + " THEN CASE WHEN " + mineLive
                + " THEN l.token ELSE l.token + 1 END ELSE l.token END,"
                + " acquired_at = CASE WHEN " + grantable + " THEN CASE WHEN " + mineLive
                + " THEN l.acquired_at ELSE now() END ELSE l.acquired_at END,"
                + " owner = CASE WHEN " + grantable + " THEN EXCLUDED.owner ELSE l.owner END,"
                + " expires_at = CASE WHEN " + grantable + " THEN EXCLUDED.expires_at ELSE l.expires_at END,"
                + " released_by = CASE WHEN " + grantable + " THEN NULL ELSE l.released_by END,"
                + " waiting = CASE WHEN " + grantable + " THEN array_remove(l.waiting, " + me
                + ") ELSE array_append(l.waiting, " + me + ") END"
                + " WHERE " + grantable + " OR (" + me + " IS NOT NULL AND NOT (" + me
                + " = ANY(coalesce(l.waiting, '{}'))))"
                + " RETURNING token, owner)"
                + " SELECT true, token, NULL, NULL FROM up WHERE owner = CAST(? AS TEXT)"
                // busy: the holder and its lease left, or (no owner: kept for the queue's head) the grace left
                + " UNION ALL SELECT false, token, owner, CAST(EXTRACT(EPOCH FROM (CASE WHEN owner IS NULL"
                + " THEN expires_at + interval '" + HEAD_GRACE_MILLIS + " milliseconds' ELSE expires_at END"
                + " - now())) * 1000000 AS BIGINT)"
                + " FROM " + table
                + " WHERE ns = ? AND name = ? AND NOT EXISTS (SELECT 1 FROM up WHERE owner = CAST(? AS TEXT))";
    }

    /** How many parameters ({@code ?}) a statement has; the statements here have no ? inside literals. */
    private static int parameters(String sql) {
        int n = 0;
        for (int i = 0; i < sql.length(); i++) {
            if (sql.charAt(i) == '?') {
                n++;
            }
        }
        return n;
    }

    /** The pids of {@code array} whose sessions are alive, in queue order (PostgreSQL). */
    private static String live(String array) {
        return "ARRAY(SELECT q.w FROM unnest(" + array + ") WITH ORDINALITY AS q(w, i)"
                + " WHERE EXISTS (SELECT 1 FROM pg_stat_get_activity(q.w)) ORDER BY q.i)";
    }

    LeaseStatements(String table, Dialect dialect) {
        super(table, dialect);
        String now;
        String plusLease;
        switch (dialect) {
            case POSTGRESQL -> {
                now = now(dialect);
                plusLease = nowPlusMicros(dialect);
                // (every parameter between the lease and the last four is the waiter's pid; a CTE holding it once
                // cost about 10 % of the uncontended rate, so it is repeated instead)
                acquireSql = postgresAcquire(table, plusLease, false);
                fairAcquireSql = postgresAcquire(table, plusLease, true);
            }
            case MARIADB -> {
                now = now(dialect);
                plusLease = nowPlusMicros(dialect);
                String free = "(expires_at IS NULL OR expires_at <= UTC_TIMESTAMP(6))";
                // assignments run left to right and later ones see earlier results: "free" is tested while
                // expires_at still holds the old value; owner is assigned just before expires_at.
                acquireSql = "INSERT INTO " + table + " (ns, name, owner, token, acquired_at, expires_at, released_by)"
                        + " VALUES (?, ?, ?, LAST_INSERT_ID(1), UTC_TIMESTAMP(6), " + plusLease + ", NULL)"
                        + " ON DUPLICATE KEY UPDATE"
                        + " token = IF(" + free
                        + ", LAST_INSERT_ID(token + 1), IF(owner = VALUES(owner), LAST_INSERT_ID(token), token + LAST_INSERT_ID(0))),"
                        + " acquired_at = IF(" + free + ", VALUES(acquired_at), acquired_at),"
                        + " released_by = IF(" + free + ", NULL, released_by),"
                        + " owner = IF(" + free + ", VALUES(owner), owner),"
                        + " expires_at = IF(" + free + " OR owner = VALUES(owner), VALUES(expires_at), expires_at)";
                fairAcquireSql = acquireSql; // no waiting queue: nothing to keep a released lock for
            }
            case H2 -> {
                now = now(dialect);
                plusLease = nowPlusMicros(dialect);
                acquireSql = "SELECT token FROM FINAL TABLE (MERGE INTO " + table
                        + " l USING (VALUES (CAST(? AS VARCHAR(64)),"
                        + " CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(255)), CAST(? AS BIGINT))) v(ns, name, owner, micros)"
                        + " ON l.ns = v.ns AND l.name = v.name"
                        + " WHEN MATCHED AND (l.expires_at IS NULL OR l.expires_at <= CURRENT_TIMESTAMP OR l.owner = v.owner) THEN UPDATE SET"
                        + " token = CASE WHEN l.owner = v.owner AND l.expires_at > CURRENT_TIMESTAMP THEN l.token ELSE l.token + 1 END,"
                        + " acquired_at = CASE WHEN l.owner = v.owner AND l.expires_at > CURRENT_TIMESTAMP THEN l.acquired_at ELSE CURRENT_TIMESTAMP END,"
                        + " owner = v.owner, expires_at = DATEADD(MICROSECOND, v.micros, CURRENT_TIMESTAMP), released_by = NULL"
                        + " WHEN NOT MATCHED THEN INSERT (ns, name, owner, token, acquired_at, expires_at)"
                        + " VALUES (v.ns, v.name, v.owner, 1, CURRENT_TIMESTAMP, DATEADD(MICROSECOND, v.micros, CURRENT_TIMESTAMP)))";
                fairAcquireSql = acquireSql; // no waiting queue: nothing to keep a released lock for
            }
            default -> throw new IllegalStateException("unknown dialect " + dialect);
        }
        acquireParameters = parameters(acquireSql);
        fairAcquireParameters = parameters(fairAcquireSql);
        String mine = " WHERE ns = ? AND name = ? AND owner = ? AND token = ? AND expires_at > " + now;
        renewSql = "UPDATE " + table + " SET expires_at = " + plusLease + mine;
        String clear = "UPDATE " + table + " SET owner = NULL, expires_at = NULL" + mine;
        String force = "UPDATE " + table + " SET released_by = owner, owner = NULL, expires_at = NULL"
                + " WHERE ns = ? AND name = ? AND expires_at > " + now;
        if (dialect == Dialect.POSTGRESQL) {
            // wake ONE waiter: the first live pid of the row's queue (dead sessions are dropped from it), with
            // a NOTIFY on that listener's own channel, sent when the release commits; nobody queued, no NOTIFY.
            // With waiters queued, expires_at keeps the release's time: the first of them has HEAD_GRACE to come
            String prune =
                    ", waiting = CASE WHEN cardinality(waiting) > 0 THEN " + live("waiting") + " ELSE waiting END";
            String notify = " RETURNING ns, name, waiting[1] AS next) " + NOTIFY_NEXT;
            releaseSql = "WITH r AS ("
                    + clear.replace(
                            " SET owner = NULL, expires_at = NULL",
                            " SET owner = NULL, expires_at = CASE WHEN coalesce(cardinality(waiting), 0) > 0 THEN"
                                    + " now() END" + prune)
                    + notify;
            forceSql = "WITH r AS (" + force.replace(" expires_at = NULL", " expires_at = NULL" + prune) + notify;
            // parameters: the next owner, its lease, then ns, name, owner, token of the held grant. Every CASE reads
            // the row as it was; a queue of dead pids only counts as queued (the release prunes it): safe, rare
            String noneQueued = "coalesce(cardinality(waiting), 0) = 0";
            handOverSql = "WITH r AS (UPDATE " + table + " SET"
                    + " owner = CASE WHEN " + noneQueued + " THEN CAST(? AS TEXT) END,"
                    + " expires_at = CASE WHEN " + noneQueued + " THEN " + plusLease + " ELSE now() END,"
                    + " token = CASE WHEN " + noneQueued + " THEN token + 1 ELSE token END,"
                    + " acquired_at = CASE WHEN " + noneQueued + " THEN now() ELSE acquired_at END" + prune + mine
                    + " RETURNING ns, name, owner, token, CASE WHEN owner IS NULL THEN waiting[1] END AS next)"
                    + " SELECT r.owner, r.token FROM r, LATERAL (SELECT CASE WHEN r.next IS NOT NULL"
                    + " THEN pg_notify('" + "latchkey_w" + "' || r.next, r.ns || '/' || r.name) END) n";
            leaveSql =
                    "WITH r AS (UPDATE " + table + " SET waiting = " + live("array_remove(waiting, CAST(? AS INTEGER))")
                            + " WHERE ns = ? AND name = ? AND CAST(? AS INTEGER) = ANY(waiting)"
                            + " RETURNING ns, name, CASE WHEN expires_at IS NULL OR expires_at <= now() THEN waiting[1] END AS next) "
                            + NOTIFY_NEXT;
        } else {
            releaseSql = clear;
            forceSql = force;
            leaveSql = null;
            handOverSql = null; // no queue to respect: a hand-over would be release + acquire, as the core does
        }
        String remaining = switch (dialect) {
            case POSTGRESQL -> "CAST(EXTRACT(EPOCH FROM (expires_at - now())) * 1000000 AS BIGINT)";
            case MARIADB -> "TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at)";
            default -> "DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, expires_at)";
        };
        holderSql = "SELECT owner, token, " + remaining + " FROM " + table
                + " WHERE ns = ? AND name = ? AND expires_at > " + now;
        inspectSql = "SELECT owner, token, acquired_at, expires_at FROM " + table
                + " WHERE ns = ? AND name = ? AND expires_at > " + now;
        listSql = "SELECT name, owner, token, acquired_at, expires_at FROM " + table
                + " WHERE ns = ? AND name LIKE ? ESCAPE '!' AND expires_at > " + now + " ORDER BY name";
    }

    /**
     * One attempt. {@code waiter} (PostgreSQL only): the pid of this client's listening session, which a busy
     * attempt queues in the row so that a release notifies it; {@code null} for an attempt that will not wait.
     */
    Outcome acquire(Connection c, LockKey k, String owner, long leaseMicros, Integer waiter, boolean fair)
            throws SQLException {
        switch (dialect) {
            case POSTGRESQL -> {
                String sql = fair ? fairAcquireSql : acquireSql;
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.setString(1, k.namespace());
                    ps.setString(2, k.name());
                    ps.setString(3, owner);
                    ps.setLong(4, leaseMicros);
                    int last = fair ? fairAcquireParameters : acquireParameters;
                    for (int i = 5; i <= last - 4; i++) {
                        ps.setObject(i, waiter, java.sql.Types.INTEGER);
                    }
                    ps.setString(last - 3, owner);
                    ps.setString(last - 2, k.namespace());
                    ps.setString(last - 1, k.name());
                    ps.setString(last, owner);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            return Outcome.BUSY_UNKNOWN;
                        }
                        if (rs.getBoolean(1)) {
                            return new Outcome(true, rs.getLong(2), null, -1, -1);
                        }
                        return new Outcome(false, -1, rs.getString(3), rs.getLong(2), rs.getLong(4));
                    }
                }
            }
            case MARIADB -> {
                try (PreparedStatement ps = c.prepareStatement(acquireSql, Statement.RETURN_GENERATED_KEYS)) {
                    setName(ps, 1, k.namespace());
                    setName(ps, 2, k.name());
                    ps.setString(3, owner);
                    ps.setLong(4, leaseMicros);
                    ps.executeUpdate();
                    try (ResultSet keys = ps.getGeneratedKeys()) {
                        long token = keys.next() ? keys.getLong(1) : 0;
                        return token > 0 ? new Outcome(true, token, null, -1, -1) : Outcome.BUSY_UNKNOWN;
                    }
                }
            }
            default -> {
                try (PreparedStatement ps = c.prepareStatement(acquireSql)) {
                    ps.setString(1, k.namespace());
                    ps.setString(2, k.name());
                    ps.setString(3, owner);
                    ps.setLong(4, leaseMicros);
                    try (ResultSet rs = ps.executeQuery()) {
                        return rs.next() ? new Outcome(true, rs.getLong(1), null, -1, -1) : Outcome.BUSY_UNKNOWN;
                    }
                }
            }
        }
    }

    /**
     * The live holder, for a busy attempt whose statement could not report it (MariaDB/MySQL, H2): a second
     * statement, sent only when busy, so that a timeout can say who holds the lock and a waiter need not look
     * again before the holder's lease ends.
     */
    Outcome holder(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(holderSql)) {
            setName(ps, 1, k.namespace());
            setName(ps, 2, k.name());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Outcome.BUSY_UNKNOWN; // freed in the meantime: the next attempt will tell
                }
                return new Outcome(false, -1, rs.getString(1), rs.getLong(2), Math.max(0, rs.getLong(3)));
            }
        }
    }

    boolean renew(Connection c, LockKey k, String owner, long token, long leaseMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(renewSql)) {
            ps.setLong(1, leaseMicros);
            bindMine(ps, 2, k, owner, token);
            return ps.executeUpdate() > 0;
        }
    }

    /**
     * The renewal of each grant, sent as one JDBC batch (the drivers pipeline it: one round trip); for each, whether
     * its row was extended, or null when the driver did not say (Statement.SUCCESS_NO_INFO).
     */
    Boolean[] renewAll(Connection c, java.util.List<LockKey> keys, java.util.List<io.latchkey.spi.Grant> grants,
            java.util.List<Long> leaseMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(renewSql)) {
            for (int i = 0; i < grants.size(); i++) {
                ps.setLong(1, leaseMicros.get(i));
                bindMine(ps, 2, keys.get(i), grants.get(i).owner(), grants.get(i).fencingToken());
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            Boolean[] out = new Boolean[grants.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = i >= counts.length || counts[i] == java.sql.Statement.SUCCESS_NO_INFO ? null : counts[i] > 0;
            }
            return out;
        }
    }

    boolean release(Connection c, LockKey k, String owner, long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(releaseSql)) {
            bindMine(ps, 1, k, owner, token);
            return runCounting(ps) > 0;
        }
    }

    /** Whether this dialect has a one-statement hand-over (PostgreSQL). */
    boolean handsOver() {
        return handOverSql != null;
    }

    /**
     * PostgreSQL: ends (owner, token)'s grant and, when no other client is queued in the row, gives the row to
     * {@code next} in the same statement. The new token when handed over; 0 when only released (the queue's head was
     * notified); -1 when the grant was no longer held (nothing changed).
     */
    long handOver(Connection c, LockKey k, String owner, long token, String next, long leaseMicros)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(handOverSql)) {
            ps.setString(1, next);
            ps.setLong(2, leaseMicros);
            bindMine(ps, 3, k, owner, token);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return -1;
                }
                return next.equals(rs.getString(1)) ? rs.getLong(2) : 0;
            }
        }
    }

    boolean forceRelease(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(forceSql)) {
            setName(ps, 1, k.namespace());
            setName(ps, 2, k.name());
            return runCounting(ps) > 0;
        }
    }

    /**
     * Takes {@code pid} out of the row's waiting queue (a waiter that gives up) and, if the lock is free,
     * passes the wake-up on to the next live waiter (PostgreSQL). True if pid was queued.
     */
    boolean leave(Connection c, String namespace, String name, int pid) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(leaveSql)) {
            ps.setInt(1, pid);
            ps.setString(2, namespace);
            ps.setString(3, name);
            ps.setInt(4, pid);
            return runCounting(ps) > 0;
        }
    }

    private long runCounting(PreparedStatement ps) throws SQLException {
        if (dialect != Dialect.POSTGRESQL) {
            return ps.executeUpdate();
        }
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private int bindMine(PreparedStatement ps, int at, LockKey k, String owner, long token) throws SQLException {
        setName(ps, at, k.namespace());
        setName(ps, at + 1, k.name());
        ps.setString(at + 2, owner);
        ps.setLong(at + 3, token);
        return at + 4;
    }

    Optional<LockInfo> inspect(Connection c, LockKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(inspectSql)) {
            setName(ps, 1, k.namespace());
            setName(ps, 2, k.name());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(
                        info(k.name(), rs.getString(1), rs.getLong(2), getInstant(rs, 3), getInstant(rs, 4)));
            }
        }
    }

    List<LockInfo> list(Connection c, String namespace, String prefix) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(listSql)) {
            setName(ps, 1, namespace);
            setName(ps, 2, SqlNames.likePrefix(prefix));
            List<LockInfo> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(info(getName(rs, 1), rs.getString(2), rs.getLong(3), getInstant(rs, 4), getInstant(rs, 5)));
                }
            }
            return out;
        }
    }
}

package io.latchkey.zookeeper;

import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantLossSink;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The grants this backend holds, by node path, and what a session change means for them.
 *
 * Sessions. A grant is bound to the session that owns its node. Its validity is counted from before the
 * request that proved it (monotonic clock): min(lease, session timeout - 1% - 2 ms), because ZooKeeper
 * cannot expire the session earlier than a session timeout after it last heard from the client. Session
 * expiry (Curator's LOST) is reported as SESSION_LOST for every grant of that session, and so is a
 * reconnection with a new session for the grants of the old one.
 *
 * Concurrency. `held` is a concurrent map; a loss is reported by whoever removes the entry (remove(key, value)),
 * so a grant released or renewed-away concurrently is never reported twice. Session events arrive on Curator's
 * single event thread. `sink` and `leaseWarned` are volatile; the lease warning may at worst be logged twice.
 */
final class HeldGrants implements ZooKeeperConnection.Events {
    private static final Logger log = LoggerFactory.getLogger(HeldGrants.class);
    private static final GrantLossSink NO_SINK = new GrantLossSink() {
        @Override
        public void grantLost(String name, String owner, LockLoss.Reason reason, String detail, Throwable cause) {}

        @Override
        public void allLost(LockLoss.Reason reason, String detail, Throwable cause) {}
    };

    private final ZooKeeperConnection connection;
    private final String description;
    private final Runnable afterLoss;
    private final Runnable afterConnect;
    private final Map<String, Grant> held = new ConcurrentHashMap<>();
    private volatile GrantLossSink sink = NO_SINK;
    private volatile boolean leaseWarned;

    /** {@code afterLoss} runs after a session loss, {@code afterConnect} after a (re)connection. */
    HeldGrants(ZooKeeperConnection connection, String description, Runnable afterLoss, Runnable afterConnect) {
        this.connection = connection;
        this.description = description;
        this.afterLoss = afterLoss;
        this.afterConnect = afterConnect;
    }

    void bind(GrantLossSink sink) {
        this.sink = sink == null ? NO_SINK : sink;
    }

    /** Records a grant on {@code node}, valid from {@code startNanos} (before the request that proved it). */
    Grant grant(AcquireRequest request, ContenderNode node, long startNanos) {
        return grant(request, node, node.czxid(), startNanos);
    }

    /** As above, with a token other than the node's czxid (a downgrade keeps the writer's). */
    Grant grant(AcquireRequest request, ContenderNode node, long token, long startNanos) {
        Duration lease = request.lease();
        checkLease(lease);
        Grant g = new Grant(
                request.name(), request.owner(), token, startNanos + validityNanos(lease), node, request.kind());
        held.put(node.path(), g);
        return g;
    }

    void forget(ContenderNode node) {
        held.remove(node.path());
    }

    /** How long a grant proven at some instant stays valid: the lease, but never beyond what the session vouches for. */
    long validityNanos(Duration lease) {
        long sessionNanos = connection.timeoutNanos();
        long sessionBound = sessionNanos - sessionNanos / 100 - TimeUnit.MILLISECONDS.toNanos(2);
        return Math.min(lease.toNanos(), Math.max(0, sessionBound));
    }

    /** Warns once when leases are longer than the session can vouch for (see the module README). */
    private void checkLease(Duration lease) {
        if (lease.toNanos() > connection.timeoutNanos() && !leaseWarned) {
            leaseWarned = true;
            log.warn(
                    "Lease {} on {} is longer than the ZooKeeper session timeout ({} ms) allows: grants are valid for at "
                            + "most the session timeout, so keep the lease (and its renew interval, lease/3 by default) within "
                            + "it, or raise sessionTimeout",
                    lease,
                    description,
                    TimeUnit.NANOSECONDS.toMillis(connection.timeoutNanos()));
        }
    }

    @Override
    public void sessionLost(long lostSessionId) {
        for (Grant g : held.values()) {
            ContenderNode node = (ContenderNode) g.state();
            if (node.sessionId() == lostSessionId && held.remove(node.path(), g)) {
                sink.grantLost(
                        g.name(),
                        g.owner(),
                        LockLoss.Reason.SESSION_LOST,
                        "ZooKeeper session 0x" + Long.toHexString(lostSessionId) + " expired; its lock nodes are gone",
                        null);
            }
        }
        afterLoss.run();
    }

    @Override
    public void connected(long sessionId) {
        for (Grant g : held.values()) {
            ContenderNode node = (ContenderNode) g.state();
            if (node.sessionId() != sessionId && held.remove(node.path(), g)) {
                sink.grantLost(
                        g.name(),
                        g.owner(),
                        LockLoss.Reason.SESSION_LOST,
                        "reconnected with a new ZooKeeper session 0x" + Long.toHexString(sessionId) + "; session 0x"
                                + Long.toHexString(node.sessionId()) + " of this lock ended",
                        null);
            }
        }
        afterConnect.run();
    }
}

package io.latchkey.zookeeper;

import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * What the backend knows about its ZooKeeper session: connected or not, which session, and its negotiated
 * timeout. Curator delivers connection-state changes on one event thread, in order; this class records
 * them in volatile fields (read by every backend call without locking) and forwards the two that matter
 * to the backend: the session was lost (LOST), and a connection is back (CONNECTED / RECONNECTED), possibly
 * with a new session.
 */
final class SessionState implements ConnectionStateListener {
    private static final Logger log = LoggerFactory.getLogger(SessionState.class);

    /** What the backend does about session changes; called on Curator's event thread, must not block long. */
    interface Events {
        void sessionLost(long lostSessionId);

        void connected(long sessionId);
    }

    private final CuratorFramework curator;
    private final long configuredTimeoutNanos;
    private final Events events;
    private volatile boolean connected;
    private volatile long sessionId;
    private volatile long timeoutNanos;

    SessionState(CuratorFramework curator, long configuredTimeoutNanos, Events events) {
        this.curator = curator;
        this.configuredTimeoutNanos = configuredTimeoutNanos;
        this.events = events;
        this.timeoutNanos = configuredTimeoutNanos;
        if (curator.getZookeeperClient().isConnected()) {
            refresh();
            connected = true;
        }
    }

    boolean isConnected() {
        return connected;
    }

    /** The session of the last (re)connection; 0 before the first. */
    long sessionId() {
        return sessionId;
    }

    /** The negotiated session timeout (or the configured one before the first connection). */
    long timeoutNanos() {
        return timeoutNanos;
    }

    @Override
    public void stateChanged(CuratorFramework client, ConnectionState newState) {
        switch (newState) {
            case CONNECTED, RECONNECTED -> {
                long before = sessionId;
                refresh();
                connected = true;
                log.debug("ZooKeeper {}: session 0x{} (was 0x{}), timeout {} ms", newState, Long.toHexString(sessionId),
                        Long.toHexString(before), TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
                events.connected(sessionId);
            }
            case SUSPENDED -> {
                connected = false;
                log.debug("ZooKeeper connection suspended; session 0x{} may still be alive", Long.toHexString(sessionId));
            }
            case LOST -> {
                connected = false;
                long lost = sessionId;
                log.debug("ZooKeeper session 0x{} lost", Long.toHexString(lost));
                events.sessionLost(lost);
            }
            default -> {
                // READ_ONLY: never requested (canBeReadOnly is off for clients this backend builds)
                connected = false;
            }
        }
    }

    private void refresh() {
        try {
            sessionId = curator.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            log.debug("could not read the ZooKeeper session id", e);
        }
        int negotiated = curator.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
        timeoutNanos = negotiated > 0 ? TimeUnit.MILLISECONDS.toNanos(negotiated) : configuredTimeoutNanos;
    }
}

package io.latchkey.zookeeper;

import io.latchkey.spi.DaemonThreads;
import io.latchkey.spi.Deadlines;
import io.latchkey.spi.Reachability;
import io.latchkey.spi.StoreErrors;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.zookeeper.client.ZKClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The Curator client's lifecycle and what the backend knows about its ZooKeeper session.
 *
 * Connecting (open). The backend first checks that some server accepts a TCP connection (otherwise it fails at
 * once with "cannot reach zookeeper://host:port within 5s: connection refused", without starting a ZooKeeper
 * client, whose reconnection loop would log a warning every second), then waits for the first session until
 * connectTimeout has passed since the call began. A client the backend built is closed with it (ending its
 * session); an application's client is never closed here.
 *
 * Session state: connected or not, which session, and its negotiated
 * timeout. Curator delivers connection-state changes on one event thread, in order; this class records
 * them in volatile fields (read by every backend call without locking) and forwards the two that matter
 * to the backend: the session was lost (LOST), and a connection is back (CONNECTED / RECONNECTED), possibly
 * with a new session.
 */
final class ZooKeeperConnection implements ConnectionStateListener {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperConnection.class);

    /** What the backend does about session changes; called on Curator's event thread, must not block long. */
    interface Events {
        void sessionLost(long lostSessionId);

        void connected(long sessionId);
    }

    private final CuratorFramework curator;
    private final boolean ownsCurator;
    private final long configuredTimeoutNanos;
    private volatile Events events;
    private volatile boolean connected;
    private volatile long sessionId;
    private volatile long timeoutNanos;

    ZooKeeperConnection(CuratorFramework curator, boolean ownsCurator, long configuredTimeoutNanos) {
        this.curator = curator;
        this.ownsCurator = ownsCurator;
        this.configuredTimeoutNanos = configuredTimeoutNanos;
        this.timeoutNanos = configuredTimeoutNanos;
        if (curator.getZookeeperClient().isConnected()) {
            refresh();
            connected = true;
        }
    }

    /**
     * Builds, starts and connects a Curator client the backend owns.
     *
     * @param connectString {@code host:port[,host:port...]}
     * @param digest        {@code user:password} for a {@code digest} authentication, or null
     * @param target        the store as one-line errors name it (no credentials)
     * @param basePath      where the locks live (the ACL of a node depends on where it is)
     * @throws io.latchkey.BackendUnavailableException {@code cannot reach <target> within <timeout>: <reason>}
     */
    static ZooKeeperConnection open(
            String connectString, String digest, ZooKeeperSettings settings, String target, String basePath) {
        Duration connectTimeout = settings.connectTimeout();
        ZooKeeperAcls acls = ZooKeeperAcls.of(settings.acl(), digest != null, basePath);
        long deadline = Deadlines.after(System.nanoTime(), connectTimeout);
        Reachability.Result reach = Reachability.probe(connectString, deadline);
        if (!reach.anyAccepted()) {
            throw StoreErrors.cannotReach(target, connectTimeout, reach.reason(), null, null);
        }
        ZKClientConfig tls = null;
        if (settings.tls()) {
            tls = ZooKeeperTls.clientConfig(settings);
            String problem = ZooKeeperTls.handshakeProblem(
                    java.util.Objects.requireNonNull(reach.accepted()),
                    tls,
                    Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            if (problem != null) {
                throw StoreErrors.cannotReach(target, connectTimeout, problem, null, null);
            }
        }
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(millis(settings.sessionTimeout().toMillis()))
                .connectionTimeoutMs(millis(connectTimeout.toMillis()))
                // a few quick retries ride out a leader election; the core retries whole acquisitions itself
                .retryPolicy(new BoundedExponentialBackoffRetry(50, 1000, 3))
                .ensembleTracker(false)
                .aclProvider(acls);
        if (tls != null) {
            b.zkClientConfig(tls);
        }
        if (digest != null) {
            b.authorization("digest", digest.getBytes(StandardCharsets.UTF_8));
        }
        CuratorFramework curator = b.build();
        curator.start();
        boolean connected;
        try {
            long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            connected = curator.blockUntilConnected((int) Math.min(Integer.MAX_VALUE, left), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeInBackground(curator);
            throw StoreErrors.cannotReach(target, connectTimeout, "interrupted while connecting", null, e);
        }
        if (!connected) {
            closeInBackground(curator);
            throw StoreErrors.cannotReach(
                    target,
                    connectTimeout,
                    "the server accepted the TCP connection but did not answer" + " ZooKeeper's session handshake",
                    null,
                    null);
        }
        return new ZooKeeperConnection(
                curator,
                true,
                TimeUnit.MILLISECONDS.toNanos(settings.sessionTimeout().toMillis()));
    }

    /*
     * A client that never connected may take a whole handshake timeout (session timeout / number of servers) to
     * close against a silent server, because the ZooKeeper client first waits for an answer to its handshake.
     * The caller has its answer already; the client ends on a daemon thread.
     */
    private static void closeInBackground(CuratorFramework curator) {
        DaemonThreads.start("latchkey-zk-close-unconnected", curator::close);
    }

    private static int millis(long ms) {
        return (int) Math.min(Integer.MAX_VALUE, ms);
    }

    /** Starts reporting session changes to {@code events} (once, by the backend that uses this connection). */
    void listen(Events events) {
        this.events = events;
        curator.getConnectionStateListenable().addListener(this);
    }

    CuratorFramework curator() {
        return curator;
    }

    /** Stops listening; closes the client (ending the session) only if the backend built it. */
    void close() {
        curator.getConnectionStateListenable().removeListener(this);
        if (ownsCurator) {
            curator.close(); // ends the session: the server removes every node this client still had
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
                log.debug(
                        "ZooKeeper {}: session 0x{} (was 0x{}), timeout {} ms",
                        newState,
                        Long.toHexString(sessionId),
                        Long.toHexString(before),
                        TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
                events.connected(sessionId);
            }
            case SUSPENDED -> {
                connected = false;
                log.debug(
                        "ZooKeeper connection suspended; session 0x{} may still be alive", Long.toHexString(sessionId));
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

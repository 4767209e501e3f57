package io.latchkey.zookeeper;

import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import io.latchkey.spi.Reachability;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.StoreErrors;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.zookeeper.common.PathUtils;

/**
 * Serves {@code zookeeper://host:port[,host:port...][/chroot][?setting=value&...]}. The optional chroot is
 * prepended to the base path; {@code user:password@} in the URI adds a {@code digest} authentication. Settings
 * ({@link ZooKeeperSettings#KEYS}) come from the settings map or the query string, not both for one key.
 *
 * <p>The backend builds and owns its Curator client. It first checks that some server accepts a TCP connection
 * (otherwise it fails at once with {@code cannot reach zookeeper://host:port within 5s: connection refused},
 * without starting a ZooKeeper client, whose reconnection loop would log a warning every second), then waits
 * for the first session until {@code connectTimeout} (default 5 s) has passed since the call began. Closing the
 * backend closes the client (ending its session).
 */
public final class ZooKeeperBackendProvider implements LockBackendProvider {

    @Override
    public Set<String> schemes() {
        return Set.of("zookeeper");
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        Parsed p = parse(uri, settings);
        String description = Redaction.redact(uri.toString());
        // the one-line errors name the servers only: scheme://host:port[,host:port], no user, no path
        String target = "zookeeper://" + p.connectString;
        Duration connectTimeout = p.settings.connectTimeout();
        long deadline = System.nanoTime() + connectTimeout.toNanos();
        Reachability.Result reach = Reachability.probe(p.connectString, deadline);
        if (!reach.anyAccepted()) {
            throw StoreErrors.cannotReach(target, connectTimeout, reach.reason(), null, null);
        }
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .connectString(p.connectString)
                .sessionTimeoutMs(millis(p.settings.sessionTimeout().toMillis()))
                .connectionTimeoutMs(millis(connectTimeout.toMillis()))
                // a few quick retries ride out a leader election; the core retries whole acquisitions itself
                .retryPolicy(new BoundedExponentialBackoffRetry(50, 1000, 3))
                .ensembleTracker(false);
        if (p.digest != null) {
            b.authorization("digest", p.digest.getBytes(StandardCharsets.UTF_8));
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
            throw StoreErrors.cannotReach(target, connectTimeout, "the server accepted the TCP connection but did not answer"
                    + " ZooKeeper's session handshake", null, null);
        }
        return new ZooKeeperLockBackend(curator, true, description, p.basePath,
                TimeUnit.MILLISECONDS.toNanos(p.settings.sessionTimeout().toMillis()));
    }

    /*
     * A client that never connected may take a whole handshake timeout (session timeout / number of servers) to
     * close against a silent server, because the ZooKeeper client first waits for an answer to its handshake.
     * The caller has its answer already; the client ends on a daemon thread.
     */
    private static void closeInBackground(CuratorFramework curator) {
        Thread t = new Thread(curator::close, "latchkey-zk-close-unconnected");
        t.setDaemon(true);
        t.start();
    }

    private static int millis(long ms) {
        return (int) Math.min(Integer.MAX_VALUE, ms);
    }

    /** The parts of a {@code zookeeper://} URI; package-private for tests. */
    static final class Parsed {
        final String connectString;
        final String basePath;
        final String digest;
        final ZooKeeperSettings settings;

        Parsed(String connectString, String basePath, String digest, ZooKeeperSettings settings) {
            this.connectString = connectString;
            this.basePath = basePath;
            this.digest = digest;
            this.settings = settings;
        }
    }

    static Parsed parse(URI uri, Map<String, String> settings) {
        String shown = Redaction.redact(String.valueOf(uri));
        if (uri == null || !"zookeeper".equalsIgnoreCase(uri.getScheme()) || uri.getRawAuthority() == null) {
            throw new IllegalArgumentException("expected zookeeper://host:port[,host:port...][/chroot], was '" + shown + "'");
        }
        if (uri.getFragment() != null) {
            throw new IllegalArgumentException("a zookeeper URI takes no #fragment, was '" + shown + "'");
        }
        String authority = uri.getRawAuthority();
        String digest = null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            if (!userInfo.contains(":")) {
                throw new IllegalArgumentException("user info in a zookeeper URI must be user:password (digest), was '"
                        + shown + "'");
            }
            digest = URLDecoder.decode(userInfo, StandardCharsets.UTF_8);
            authority = authority.substring(at + 1);
        }
        StringBuilder connect = new StringBuilder();
        for (String hostPort : authority.split(",", -1)) {
            int colon = hostPort.lastIndexOf(':');
            if (hostPort.isBlank() || colon <= 0 || colon == hostPort.length() - 1) {
                throw new IllegalArgumentException("every server in a zookeeper URI must be host:port, got '" + hostPort
                        + "' in '" + shown + "'");
            }
            try {
                int port = Integer.parseInt(hostPort.substring(colon + 1));
                if (port < 1 || port > 65535) {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("port must be 1..65535 in '" + hostPort + "' of '" + shown + "'");
            }
            if (connect.length() > 0) {
                connect.append(',');
            }
            connect.append(hostPort);
        }
        Map<String, String> merged = new LinkedHashMap<>();
        if (uri.getRawQuery() != null && !uri.getRawQuery().isEmpty()) {
            for (String pair : uri.getRawQuery().split("&")) {
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("query parameters must be key=value, got '" + pair + "' in '" + shown + "'");
                }
                merged.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        if (settings != null) {
            for (Map.Entry<String, String> e : settings.entrySet()) {
                if (merged.containsKey(e.getKey())) {
                    throw new IllegalArgumentException("setting '" + e.getKey() + "' is given both in the URI and in the "
                            + "settings map; give it once");
                }
                merged.put(e.getKey(), e.getValue());
            }
        }
        ZooKeeperSettings s = ZooKeeperSettings.fromMap(merged);
        String chroot = uri.getPath() == null ? "" : uri.getPath();
        if (chroot.equals("/")) {
            chroot = "";
        }
        if (!chroot.isEmpty()) {
            if (chroot.endsWith("/")) {
                chroot = chroot.substring(0, chroot.length() - 1);
            }
            try {
                PathUtils.validatePath(chroot);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("chroot '" + chroot + "' in '" + shown + "' is not a valid ZooKeeper path: "
                        + e.getMessage(), e);
            }
        }
        String base = ZooKeeperSettings.builder().basePath(chroot + s.basePath()).build().basePath();
        return new Parsed(connect.toString(), base, digest, s);
    }
}

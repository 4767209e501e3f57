package io.latchkey.zookeeper;

import io.latchkey.spi.BackendUri;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import io.latchkey.spi.Redaction;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.zookeeper.common.PathUtils;

/**
 * Serves {@code zookeeper://host:port[,host:port...][/chroot][?setting=value&...]}. The optional chroot is
 * prepended to the base path; {@code user:password@} in the URI adds a {@code digest} authentication. Settings
 * ({@link ZooKeeperSettings#KEYS}) come from the settings map or the query string, not both for one key. The URI
 * is taken apart by {@link BackendUri}; what is ZooKeeper's own is checked here: every server needs a port, and
 * a digest credential needs a user and a password (a lone {@code password@} is refused, without echoing it).
 *
 * <p>The backend builds and owns its Curator client ({@link ZooKeeperConnection#open}); closing the backend
 * closes the client (ending its session).
 */
public final class ZooKeeperBackendProvider implements LockBackendProvider {
    /** Passed to {@link BackendUri} as the default port, so that a server written without one is refused. */
    private static final int NO_PORT = -1;

    @Override
    public Set<String> schemes() {
        return Set.of("zookeeper");
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        Parsed p = parse(uri, settings);
        // the one-line errors name the servers only: scheme://host:port[,host:port], no user, no path
        String target = "zookeeper://" + p.connectString;
        ZooKeeperConnection connection = ZooKeeperConnection.open(p.connectString, p.digest, p.settings, target, p.basePath);
        return new ZooKeeperLockBackend(connection, p.description, p.basePath);
    }

    /** The parts of a {@code zookeeper://} URI; package-private for tests. */
    static final class Parsed {
        final String connectString;
        final String basePath;
        final String digest;
        final ZooKeeperSettings settings;
        final String description;

        Parsed(String connectString, String basePath, String digest, ZooKeeperSettings settings, String description) {
            this.connectString = connectString;
            this.basePath = basePath;
            this.digest = digest;
            this.settings = settings;
            this.description = description;
        }
    }

    static Parsed parse(URI uri, Map<String, String> settings) {
        if (uri == null || !"zookeeper".equalsIgnoreCase(uri.getScheme()) || uri.getRawAuthority() == null) {
            throw new IllegalArgumentException("expected zookeeper://host:port[,host:port...][/chroot], was '"
                    + Redaction.redact(String.valueOf(uri)) + "'");
        }
        BackendUri u = BackendUri.parse(uri, ZooKeeperSettings.BACKEND, settings, NO_PORT);
        String shown = u.toString();
        if (uri.getFragment() != null) {
            throw new IllegalArgumentException("a zookeeper URI takes no #fragment, was '" + shown + "'");
        }
        for (BackendUri.HostPort h : u.hosts()) {
            if (h.port() == NO_PORT) {
                throw new IllegalArgumentException(
                        "every server in a zookeeper URI must be host:port, got '" + h.host() + "' in '" + shown + "'");
            }
        }
        String digest = digest(uri, u, shown);
        ZooKeeperSettings s = ZooKeeperSettings.from(u.settings());
        String chroot = u.path().isEmpty() ? "" : "/" + u.path();
        if (!chroot.isEmpty()) {
            if (chroot.endsWith("/")) {
                chroot = chroot.substring(0, chroot.length() - 1);
            }
            try {
                PathUtils.validatePath(chroot);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "chroot '" + chroot + "' in '" + shown + "' is not a valid ZooKeeper path: " + e.getMessage(),
                        e);
            }
        }
        String base = ZooKeeperSettings.builder()
                .basePath(chroot + s.basePath())
                .namespace(s.namespace())
                .build()
                .lockRoot();
        String connect = u.hosts().stream().map(BackendUri.HostPort::toString).collect(Collectors.joining(","));
        return new Parsed(connect, base, digest, s, shown);
    }

    /*
     * ZooKeeper's digest scheme needs user:password. BackendUri reads a user-info without a colon as a lone
     * password (the Redis convention); here that is an error. ":pw@" (empty user) stays the digest ":pw", as it
     * always was.
     */
    private static String digest(URI uri, BackendUri u, String shown) {
        String authority = uri.getRawAuthority();
        int at = authority.lastIndexOf('@');
        boolean userInfoWithColon = at >= 0 && authority.substring(0, at).contains(":");
        if (u.password().isEmpty() && u.user().isEmpty()) {
            return null;
        }
        if (u.password().isEmpty() || (u.user().isEmpty() && !userInfoWithColon)) {
            throw new IllegalArgumentException(
                    "user info in a zookeeper URI must be user:password (digest), was '" + shown + "'");
        }
        return u.user().orElse("") + ":" + u.password().get();
    }
}

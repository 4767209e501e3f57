package io.latchkey.jdbc;

import io.latchkey.servers.RunningServer;
import io.latchkey.servers.ServerControl;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.FaultProxies;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.TckFaults;
import io.latchkey.tck.TckSettings;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.opentest4j.TestAbortedException;

/**
 * The TCK against a real database: each {@link #newBackend()} is a new client (its own HikariCP pool) built
 * through the provider, as {@code Latchkey.connect} would. Fault hooks: outage = the server is frozen
 * (SIGSTOP), killSession = the holder's database sessions are killed server-side, restartServer = a real
 * restart of the server process.
 */
abstract class JdbcBackendTck extends LockBackendTck {

    /** The JDBC URL of the database under test. */
    protected abstract String url();

    protected abstract JdbcMode mode();

    /** The server, for fault hooks; null for an embedded database. */
    protected abstract RunningServer server();

    protected Map<String, String> settings(JdbcMode mode) {
        Map<String, String> s = new HashMap<>();
        s.put("mode", mode.name().toLowerCase(java.util.Locale.ROOT));
        // session mode pins a connection per held lock, and the validation rule holds ~60 names at once
        s.put("poolSize", mode == JdbcMode.SESSION ? "80" : "10");
        return s;
    }

    /**
     * A 2 s short lease for servers (1 s for embedded H2): with 1 s the first renewal, due after 333 ms, must
     * finish within ~600 ms, which a loaded 2-core CI machine does not always grant a networked database.
     */
    @Override
    protected TckSettings settings() {
        return server() == null
                ? TckSettings.defaults()
                : TckSettings.defaults().toBuilder()
                        .shortLease(Duration.ofSeconds(2))
                        // a session-mode lock lives as long as its connection, and a SIGSTOPped process keeps it
                        .pausedHolderKeepsItsLock(mode() == JdbcMode.SESSION)
                        .build();
    }

    /** A child JVM connects by the same URL and settings; an in-memory H2 database lives in this JVM only. */
    @Override
    protected java.util.Optional<io.latchkey.tck.ProcessBackend> processBackend() {
        return server() == null
                ? java.util.Optional.empty()
                : java.util.Optional.of(new io.latchkey.tck.ProcessBackend(url(), settings(mode())));
    }

    @Override
    protected LockBackend newBackend() {
        return new JdbcBackendProvider().create(URI.create(url()), settings(mode()));
    }

    /** The same URL and settings with the namespace setting every scheme accepts. */
    @Override
    protected java.util.Optional<LockBackend> newBackendInNamespace(String namespace) {
        Map<String, String> settings = new java.util.HashMap<>(settings(mode()));
        settings.put("namespace", namespace);
        return java.util.Optional.of(new JdbcBackendProvider().create(URI.create(url()), settings));
    }

    /** The same URL with the server's {@code host:port} through a fault proxy; none for an in-memory H2 database. */
    @Override
    protected java.util.Optional<LockBackend> newBackendThrough(FaultProxies proxies) {
        RunningServer s = server();
        if (s == null) {
            return java.util.Optional.empty();
        }
        String direct = "//" + s.endpoint().hostAndPort() + "/";
        if (!url().contains(direct)) {
            throw new IllegalStateException("the TCK's URL does not name the server as " + direct + ": " + url());
        }
        String proxied = url().replace(direct, "//" + proxies.route(s.endpoint().hostAndPort()) + "/");
        return java.util.Optional.of(new JdbcBackendProvider().create(URI.create(proxied), settings(mode())));
    }

    @Override
    protected TckFaults faults() {
        return new TckFaults() {
            @Override
            public AutoCloseable outage() {
                ServerControl control = control();
                control.pause();
                return control::resume;
            }

            @Override
            public void killSession(LockBackend backend) {
                if (!(backend instanceof SessionBackend session)) {
                    throw new TestAbortedException("lease mode has no database session to kill");
                }
                try {
                    for (long id : session.sessionIds()) {
                        session.killSession(id);
                    }
                } catch (java.sql.SQLException e) {
                    throw new AssertionError("could not kill the sessions of " + backend, e);
                }
            }

            @Override
            public void restartServer() {
                // PostgreSQL's fixture stops with SIGINT, a "fast" shutdown that ends the client sessions
                ServerControl control = control();
                control.restart();
            }
        };
    }

    private ServerControl control() {
        RunningServer s = server();
        if (s == null) {
            throw new TestAbortedException(
                    "an embedded H2 database runs inside this JVM and cannot be paused or restarted");
        }
        return s.requireFaultInjection();
    }
}

package io.latchkey.servers;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every {@link ServerProcess} that may still have a process, so a JVM shutdown hook can kill them when a
 * test run is aborted or a test forgets to close its server.
 *
 * <p>Design: a concurrent set; the hook is installed once, lazily, by the first registration. The hook
 * does not take the servers' lifecycle locks, since a thread holding one may be the reason the JVM is
 * going down.
 */
final class LiveProcesses {

    private static final Logger LOG = LoggerFactory.getLogger(LiveProcesses.class);
    private static final Set<ServerProcess> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOK_INSTALLED = new AtomicBoolean();

    private LiveProcesses() {}

    static void register(ServerProcess server) {
        if (HOOK_INSTALLED.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(new Thread(LiveProcesses::killAll, "latchkey-server-reaper"));
        }
        LIVE.add(server);
    }

    static void unregister(ServerProcess server) {
        LIVE.remove(server);
    }

    static Set<ServerProcess> snapshot() {
        return Set.copyOf(LIVE);
    }

    /** What the shutdown hook runs. */
    static void killAll() {
        kill(List.copyOf(LIVE));
    }

    /** Kills the given servers as the hook would; package-private so a test can prove it on its own server. */
    static void kill(List<ServerProcess> servers) {
        for (ServerProcess server : servers) {
            try {
                server.killForShutdown();
            } catch (RuntimeException e) {
                LOG.warn("could not kill {} while the JVM shuts down", server.name(), e);
            }
            LIVE.remove(server);
        }
    }
}

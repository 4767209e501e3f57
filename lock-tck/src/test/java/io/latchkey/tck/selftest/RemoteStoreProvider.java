package io.latchkey.tck.selftest;

import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/**
 * Serves {@code flawed-tcp://host:port} (a {@link StoreServer}) to {@code Latchkey.connect}, so that the child JVMs
 * of the TCK self-test reach the test's store. On the test class path only.
 */
public final class RemoteStoreProvider implements LockBackendProvider {
    /** The setting that gives a child's client the flaw EXPIRY_FROM_CLIENT_WALL_CLOCK. */
    static final String WALL_CLOCK_EXPIRY = "wallClockExpiry";

    @Override
    public Set<String> schemes() {
        return Set.of(StoreServer.SCHEME);
    }

    @Override
    public LockBackend create(URI uri, Map<String, String> settings) {
        if (uri.getHost() == null
                || uri.getPort() < 0
                || !Set.of(WALL_CLOCK_EXPIRY).containsAll(settings.keySet())) {
            throw new IllegalArgumentException("a self-test store URI is flawed-tcp://host:port, with no setting but "
                    + WALL_CLOCK_EXPIRY + "; was " + uri + " with " + settings.keySet());
        }
        return new RemoteStoreBackend(
                uri.getHost(), uri.getPort(), Boolean.parseBoolean(settings.getOrDefault(WALL_CLOCK_EXPIRY, "false")));
    }
}

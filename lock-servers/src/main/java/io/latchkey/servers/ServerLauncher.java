package io.latchkey.servers;

/**
 * Starts a server that needs no binary from {@code PATH}: a Testcontainers container or an embedded server.
 * Code in it may use optional dependencies (Testcontainers, Curator's test jar, H2); {@link ServerFixture}
 * calls it only when that option is tried, so those classes are loaded only then.
 */
@FunctionalInterface
public interface ServerLauncher {

    /**
     * Starts the server and returns once it is ready.
     *
     * @return the running server, owned by the caller
     * @throws Exception if it cannot be started; the fixture reports it and tries the next option
     */
    RunningServer launch() throws Exception;
}

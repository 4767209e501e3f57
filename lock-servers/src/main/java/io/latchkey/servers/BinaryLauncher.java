package io.latchkey.servers;

import java.nio.file.Path;

/**
 * Starts a server from a binary {@link ServerFixture} found on {@code PATH}, typically by building and
 * starting a {@link ServerProcess} on {@link FreePorts} and returning
 * {@link RunningServer#ownedProcess(Endpoint, ServerProcess)}.
 */
@FunctionalInterface
public interface BinaryLauncher {

    /**
     * Starts the server and returns once it is ready.
     *
     * @param binary the executable that was found
     * @return the running server, owned by the caller
     * @throws Exception if it cannot be started; the fixture reports it and tries the next option
     */
    RunningServer launch(Path binary) throws Exception;
}

package io.latchkey.tck;

import io.latchkey.spi.LockBackend;
import org.opentest4j.TestAbortedException;

/**
 * Optional fault hooks a backend's TCK subclass can supply (override {@link LockBackendTck#faults()}).
 * Each hook that is not supplied makes the tests that need it report "skipped" with the reason.
 *
 * <p>The TCK simulates a crashed client by itself, for every backend: it closes the backend without
 * releasing and makes every further call fail. {@link #crash(LockBackend)} lets a backend do that more
 * faithfully (for example by killing the connection on the server side).
 */
public interface TckFaults {
    /** No hooks. */
    TckFaults NONE = new TckFaults() {};

    /**
     * Makes the store unreachable for every client until the returned handle is closed (a network
     * partition, a paused server).
     *
     * @return the handle that ends the outage
     */
    default AutoCloseable outage() {
        throw new TestAbortedException("this backend's TCK supplies no outage() fault hook");
    }

    /**
     * Ends the store session of the given backend (server-side kill), as a session expiry would.
     *
     * @param backend a backend made by the TCK
     */
    default void killSession(LockBackend backend) {
        throw new TestAbortedException("this backend's TCK supplies no killSession() fault hook");
    }

    /** Restarts the store's server(s) and returns once they accept requests again. */
    default void restartServer() {
        throw new TestAbortedException("this backend's TCK supplies no restartServer() fault hook");
    }

    /**
     * Crashes a client: the backend stops talking to the store without releasing anything. The default
     * closes it, which ends its sessions; override when a backend's close releases more than a crash would.
     *
     * @param backend the backend to crash
     */
    default void crash(LockBackend backend) {
        backend.close();
    }
}

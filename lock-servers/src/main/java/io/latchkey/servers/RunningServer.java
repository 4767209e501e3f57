package io.latchkey.servers;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A server a test can talk to: its {@link Endpoint}, where it came from, and, if the fixture owns it, a
 * {@link ServerControl} for fault injection. Closing it releases what the fixture started (nothing for an
 * endpoint from the environment).
 *
 * <p>Design: immutable apart from a once-only close flag, so it can be shared by a test's threads;
 * {@link #close()} is idempotent and thread-safe.
 */
public final class RunningServer implements AutoCloseable {

    private final Endpoint endpoint;
    private final ServerControl control;
    private final AutoCloseable resource;
    private final ServerOrigin origin;
    private final String description;
    private final AtomicBoolean closed;
    private final UnavailablePolicy policy;

    private RunningServer(
            Endpoint endpoint,
            ServerControl control,
            AutoCloseable resource,
            ServerOrigin origin,
            String description,
            AtomicBoolean closed,
            UnavailablePolicy policy) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.control = control;
        this.resource = resource;
        this.origin = origin;
        this.description = description;
        this.closed = closed;
        this.policy = policy;
    }

    /**
     * A server run by a {@link ServerProcess}: controllable, and closing it closes the process.
     *
     * @param endpoint where it listens
     * @param process the started process
     * @return the server
     */
    public static RunningServer ownedProcess(Endpoint endpoint, ServerProcess process) {
        Objects.requireNonNull(process, "process");
        return new RunningServer(
                endpoint,
                process,
                process,
                ServerOrigin.MANUAL,
                process.name(),
                new AtomicBoolean(),
                UnavailablePolicy.THROW);
    }

    /**
     * A server from parts, e.g. a container or an embedded server.
     *
     * @param endpoint where it listens
     * @param control fault injection for it, or {@code null} if it cannot be controlled
     * @param resource what {@link #close()} closes, or {@code null} for nothing
     * @return the server
     */
    public static RunningServer of(Endpoint endpoint, ServerControl control, AutoCloseable resource) {
        return new RunningServer(
                endpoint,
                control,
                resource,
                ServerOrigin.MANUAL,
                String.valueOf(endpoint),
                new AtomicBoolean(),
                UnavailablePolicy.THROW);
    }

    /**
     * A server somebody else runs: no control, nothing to close.
     *
     * @param endpoint where it listens
     * @return the server
     */
    public static RunningServer external(Endpoint endpoint) {
        return of(endpoint, null, null);
    }

    /** The same server tagged by the fixture with where it came from; shares the close flag. */
    RunningServer withOrigin(ServerOrigin newOrigin, String newDescription) {
        return new RunningServer(endpoint, control, resource, newOrigin, newDescription, closed, policy);
    }

    /** The same server with the fixture's policy for {@link #requireFaultInjection()}; shares the close flag. */
    RunningServer withPolicy(UnavailablePolicy newPolicy) {
        return new RunningServer(endpoint, control, resource, origin, description, closed, newPolicy);
    }

    /**
     * Where the server listens.
     *
     * @return the endpoint
     */
    public Endpoint endpoint() {
        return endpoint;
    }

    /**
     * Which option provided the server.
     *
     * @return the origin
     */
    public ServerOrigin origin() {
        return origin;
    }

    /**
     * A one-line description for logs, e.g. "redis from LATCHKEY_REDIS_URI=redis://10.0.0.5:6379".
     *
     * @return the description
     */
    public String description() {
        return description;
    }

    /**
     * Whether fault tests can pause, kill or restart this server.
     *
     * @return {@code true} if a {@link ServerControl} is present
     */
    public boolean canInjectFaults() {
        return control != null;
    }

    /**
     * The fault-injection control, if the fixture owns the server.
     *
     * @return the control
     */
    public Optional<ServerControl> control() {
        return Optional.ofNullable(control);
    }

    /**
     * The control for a fault test, or what the fixture's {@link UnavailablePolicy} throws (the TCK skips the
     * test; by default an {@link IllegalStateException}) when this server cannot be controlled, e.g. because it came from an environment variable: such a server is an explicit choice
     * to test against someone else's server, which fault tests must not freeze or kill.
     *
     * @return the control
     * @throws RuntimeException from the policy, if the server cannot be controlled
     */
    public ServerControl requireFaultInjection() {
        if (control == null) {
            throw policy.noFaultInjection("fault injection needs a server this fixture started, but " + description
                    + " (" + origin.label() + ") cannot be paused, killed or restarted by the test");
        }
        return control;
    }

    /** Releases what the fixture started; idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true) || resource == null) {
            return;
        }
        try {
            resource.close();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("could not close " + description + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "RunningServer[" + description + ", " + origin.label() + ", " + endpoint + "]";
    }
}

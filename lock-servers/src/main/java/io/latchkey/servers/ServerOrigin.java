package io.latchkey.servers;

/**
 * Where a {@link RunningServer} came from, in the order {@link ServerFixture} tries the options.
 */
public enum ServerOrigin {
    /** An endpoint named by an environment variable; the fixture does not own the server. */
    ENVIRONMENT("environment variable"),
    /** A binary found on {@code PATH} (or a usual server directory), launched by the fixture. */
    PATH_BINARY("binary on PATH"),
    /** A container started through Testcontainers. */
    TESTCONTAINERS("Testcontainers"),
    /** A server running inside this JVM (H2, Curator's TestingServer, ...). */
    EMBEDDED("embedded server"),
    /** Made directly by code, not chosen by a {@link ServerFixture}. */
    MANUAL("created directly");

    private final String label;

    ServerOrigin(String label) {
        this.label = label;
    }

    /**
     * A short human-readable name for messages.
     *
     * @return e.g. "binary on PATH"
     */
    public String label() {
        return label;
    }
}

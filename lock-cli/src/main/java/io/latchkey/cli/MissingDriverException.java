package io.latchkey.cli;

/**
 * No JDBC driver on the class path accepts the backend's {@code jdbc:} URL: a set-up mistake, reported as a
 * usage error (exit 64) in one line, the backend's own message, which names the driver's Maven coordinates
 * to add. Nothing was connected.
 */
final class MissingDriverException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MissingDriverException(String message, Throwable cause) {
        super(message, cause);
    }
}

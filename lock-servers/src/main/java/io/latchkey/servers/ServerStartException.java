package io.latchkey.servers;

import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

/**
 * A server process could not be launched, exited before it was ready, or was not ready in time. The
 * message holds the command line, the elapsed time, whether and how the process exited, and the tail of
 * its log, so that the failure can be understood from a CI report alone.
 */
public final class ServerStartException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The exit code, or {@code null} if the process never ran or was killed. */
    private final Integer exitCode;
    /** The last lines of the server's log, oldest first. */
    private final List<String> logTail;
    /** How long the start attempt took. */
    private final Duration elapsed;

    ServerStartException(String message, Integer exitCode, List<String> logTail, Duration elapsed, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
        this.logTail = List.copyOf(logTail);
        this.elapsed = elapsed;
    }

    /**
     * The exit code if the process exited by itself before it was ready.
     *
     * @return the exit code, or empty if it never ran or was still running (and was then killed)
     */
    public OptionalInt exitCode() {
        return exitCode == null ? OptionalInt.empty() : OptionalInt.of(exitCode);
    }

    /**
     * The last lines the server wrote.
     *
     * @return an immutable list, oldest first
     */
    public List<String> logTail() {
        return logTail;
    }

    /**
     * How long the start attempt took.
     *
     * @return the elapsed time
     */
    public Duration elapsed() {
        return elapsed;
    }
}

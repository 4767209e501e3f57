package io.latchkey.servers;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Tells whether a just-started server is ready to serve. {@link ServerProcess#start()} polls it until it
 * answers {@code true}, the process exits, or the startup timeout passes.
 *
 * <p>Design: a check is a plain function of the server so that arbitrary user code can be one. A check
 * that throws is treated as "not ready yet"; the last exception is quoted in the timeout message. A check
 * should return promptly (well under a second) because it is polled; the built-in TCP check uses a short
 * connect timeout for that reason.
 */
@FunctionalInterface
public interface ReadinessCheck {

    /** Connect timeout used by {@link #tcpPortOpen(String, int)}; loopback answers in microseconds. */
    Duration TCP_CONNECT_TIMEOUT = Duration.ofMillis(250);

    /**
     * Answers whether the server is ready.
     *
     * @param server the process being started; gives access to its log
     * @return {@code true} once the server is ready
     * @throws Exception meaning "not ready yet"; the message is reported if the start times out
     */
    boolean isReady(ServerProcess server) throws Exception;

    /**
     * What this check waits for, for failure messages.
     *
     * @return a short description
     */
    default String description() {
        return "custom readiness check";
    }

    /**
     * A check that is ready when both this and {@code other} are.
     *
     * @param other the second check, evaluated only when this one is ready
     * @return the combined check
     */
    default ReadinessCheck and(ReadinessCheck other) {
        Objects.requireNonNull(other, "other");
        ReadinessCheck first = this;
        return describedAs(
                first.description() + " and " + other.description(),
                server -> first.isReady(server) && other.isReady(server));
    }

    /**
     * Gives a custom check a description for failure messages.
     *
     * @param description what the check waits for, e.g. "PING answers PONG"
     * @param check the check
     * @return the described check
     */
    static ReadinessCheck describedAs(String description, ReadinessCheck check) {
        if (description == null || description.isBlank()) {
            throw new IllegalArgumentException("description must be a non-blank text, was '" + description + "'");
        }
        return new DescribedReadinessCheck(description, Objects.requireNonNull(check, "check"));
    }

    /**
     * Ready when 127.0.0.1:{@code port} accepts TCP connections.
     *
     * @param port 1 to 65535
     * @return the check
     */
    static ReadinessCheck tcpPortOpen(int port) {
        return tcpPortOpen("127.0.0.1", port);
    }

    /**
     * Ready when {@code host:port} accepts TCP connections.
     *
     * @param host a host name or address
     * @param port 1 to 65535
     * @return the check
     */
    static ReadinessCheck tcpPortOpen(String host, int port) {
        Endpoint.requireValidPort(port);
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host must be a non-blank host name or address, was '" + host + "'");
        }
        return describedAs("TCP " + host + ":" + port + " accepts connections", server -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, port), (int) TCP_CONNECT_TIMEOUT.toMillis());
                return true;
            }
        });
    }

    /**
     * Ready when a line of the server's output written since this start matches {@code regex}
     * ({@link java.util.regex.Matcher#find() find} semantics).
     *
     * @param regex a Java regular expression, e.g. {@code "Ready to accept connections"}
     * @return the check
     * @throws IllegalArgumentException if {@code regex} is not a valid regular expression
     */
    static ReadinessCheck logLineMatches(String regex) {
        if (regex == null || regex.isEmpty()) {
            throw new IllegalArgumentException("regex must be a non-empty regular expression, was '" + regex + "'");
        }
        Pattern pattern;
        try {
            pattern = Pattern.compile(regex);
        } catch (java.util.regex.PatternSyntaxException e) {
            throw new IllegalArgumentException("regex is not a valid Java regular expression: " + e.getMessage(), e);
        }
        return describedAs("a log line matching /" + regex + "/", server -> server.logHasLineMatching(pattern));
    }
}

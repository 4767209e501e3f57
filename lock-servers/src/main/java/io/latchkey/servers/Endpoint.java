package io.latchkey.servers;

import io.latchkey.spi.BackendUri;
import io.latchkey.spi.Redaction;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a server listens: a host, one or more ports (a server may expose several, e.g. client and peer
 * ports), and optionally the full URI a client library wants (e.g. {@code redis://127.0.0.1:6390/0} or a
 * JDBC URL). Immutable.
 */
public final class Endpoint {

    private final String host;
    private final List<Integer> ports;
    private final String uri;

    private Endpoint(String host, List<Integer> ports, String uri) {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host must be a non-blank host name or address, was '" + host + "'");
        }
        if (ports == null || ports.isEmpty()) {
            throw new IllegalArgumentException("at least one port is required, was " + ports);
        }
        ports.forEach(Endpoint::requireValidPort);
        if (uri != null && uri.isBlank()) {
            throw new IllegalArgumentException("uri must be null or a non-blank text, was '" + uri + "'");
        }
        this.host = host;
        this.ports = List.copyOf(ports);
        this.uri = uri;
    }

    /**
     * An endpoint with one port and no URI.
     *
     * @param host host name or address
     * @param port 1 to 65535
     * @return the endpoint
     */
    public static Endpoint of(String host, int port) {
        return new Endpoint(host, List.of(port), null);
    }

    /**
     * An endpoint with one port and the URI clients should use.
     *
     * @param host host name or address
     * @param port 1 to 65535
     * @param uri e.g. {@code redis://127.0.0.1:6390}
     * @return the endpoint
     */
    public static Endpoint of(String host, int port, String uri) {
        return new Endpoint(host, List.of(port), Objects.requireNonNull(uri, "uri"));
    }

    /**
     * An endpoint with several ports, the first being the main one.
     *
     * @param host host name or address
     * @param ports at least one, each 1 to 65535
     * @param uri the URI clients should use, or {@code null}
     * @return the endpoint
     */
    public static Endpoint of(String host, List<Integer> ports, String uri) {
        return new Endpoint(host, ports, uri);
    }

    /**
     * Parses {@code host:port} (or {@code [v6-address]:port}).
     *
     * @param text e.g. {@code 127.0.0.1:2181}
     * @return the endpoint, without URI
     * @throws IllegalArgumentException if the text is not of that form
     */
    public static Endpoint parseHostPort(String text) {
        if (text == null) {
            throw new IllegalArgumentException("expected host:port such as 127.0.0.1:6379, was null");
        }
        String trimmed = text.trim();
        int colon = trimmed.lastIndexOf(':');
        if (colon <= 0 || colon == trimmed.length() - 1) {
            throw new IllegalArgumentException("expected host:port such as 127.0.0.1:6379, was '" + text + "'");
        }
        String host = trimmed.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new Endpoint(host, List.of(parsePort(trimmed.substring(colon + 1), text)), null);
    }

    /**
     * Parses a URI with an authority, such as {@code redis://127.0.0.1:6390/0},
     * {@code http://127.0.0.1:2379} or {@code jdbc:postgresql://127.0.0.1:5432/latchkey}; the whole text is
     * kept as {@link #uri()}.
     *
     * @param text the URI
     * @return the endpoint
     * @throws IllegalArgumentException if it is not a URI with a host and an explicit port
     */
    public static Endpoint parseUri(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException(
                    "expected a URI such as redis://127.0.0.1:6379, was '" + Redaction.redact(text) + "'");
        }
        String trimmed = text.trim();
        String parsable = trimmed.startsWith("jdbc:") ? trimmed.substring("jdbc:".length()) : trimmed;
        URI uri = BackendUri.toUri(parsable); // the SPI's one parser: its errors never quote a password
        if (uri.getHost() == null || uri.getPort() < 0) {
            throw new IllegalArgumentException("expected a URI with a host and an explicit port, such as "
                    + "redis://127.0.0.1:6379, was '" + Redaction.redact(trimmed) + "'");
        }
        return new Endpoint(uri.getHost(), List.of(uri.getPort()), trimmed);
    }

    /**
     * The host name or address.
     *
     * @return the host
     */
    public String host() {
        return host;
    }

    /**
     * The main (first) port.
     *
     * @return the port
     */
    public int port() {
        return ports.get(0);
    }

    /**
     * All ports, the main one first.
     *
     * @return an immutable list
     */
    public List<Integer> ports() {
        return ports;
    }

    /**
     * The URI clients should use, if one was given.
     *
     * @return the URI text
     */
    public Optional<String> uri() {
        return Optional.ofNullable(uri);
    }

    /**
     * {@code host:port} of the main port.
     *
     * @return e.g. {@code 127.0.0.1:6390}
     */
    public String hostAndPort() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port();
    }

    /**
     * The same host and ports with another URI.
     *
     * @param newUri the URI
     * @return a new endpoint
     */
    public Endpoint withUri(String newUri) {
        return new Endpoint(host, ports, Objects.requireNonNull(newUri, "uri"));
    }

    static void requireValidPort(int port) {
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("port must be between 1 and 65535, was " + port);
        }
    }

    private static int parsePort(String text, String whole) {
        try {
            int port = Integer.parseInt(text);
            requireValidPort(port);
            return port;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port must be a number between 1 and 65535 in '" + whole + "'", e);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Endpoint that
                && host.equals(that.host)
                && ports.equals(that.ports)
                && Objects.equals(uri, that.uri);
    }

    @Override
    public int hashCode() {
        return Objects.hash(host, ports, uri);
    }

    @Override
    public String toString() {
        return uri != null ? Redaction.redact(uri) : ports.size() == 1 ? hostAndPort() : host + ":" + ports;
    }
}

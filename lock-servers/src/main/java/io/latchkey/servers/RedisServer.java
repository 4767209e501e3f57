package io.latchkey.servers;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The recipe for a throw-away Redis, shared by the test fixtures and the CLI's {@code bench}:
 * {@code redis-server} ({@code redis-server} package) in the foreground on a loopback port, no persistence
 * ({@code --save ""}, no append-only file), its working directory a temporary one deleted on close, ready when
 * it logs that it accepts connections and the port is open. A TLS variant serves TLS only. Stateless.
 */
public final class RedisServer {
    /** The server binary to find with {@link Binaries}. */
    public static final String BINARY = "redis-server";
    /** The Debian package that brings it. */
    public static final String DEBIAN_PACKAGE = "redis-server";

    private RedisServer() {}

    /**
     * How a TLS-only server is set up.
     *
     * @param certificate the server certificate (PEM)
     * @param key its private key (PEM)
     * @param ca the CA that client certificates are checked against
     * @param requireClientCertificate {@code --tls-auth-clients yes} (mutual TLS) or {@code no}
     */
    public record Tls(Path certificate, Path key, Path ca, boolean requireClientCertificate) {}

    /**
     * The server process, not started; it deletes {@code dir} on close.
     *
     * @param redis the binary
     * @param dir an empty directory for the server's files
     * @param port a free loopback port
     * @param tls how to serve TLS only, or {@code null} for plain TCP
     * @param extraArguments appended to the command, e.g. {@code --requirepass}
     * @return the builder, for a caller's name or other changes
     */
    public static ServerProcessBuilder process(Path redis, Path dir, int port, Tls tls, List<String> extraArguments) {
        List<String> command = new ArrayList<>(List.of(redis.toString()));
        if (tls == null) {
            command.addAll(List.of("--port", Integer.toString(port)));
        } else {
            command.addAll(List.of(
                    "--port",
                    "0",
                    "--tls-port",
                    Integer.toString(port),
                    "--tls-cert-file",
                    tls.certificate().toString(),
                    "--tls-key-file",
                    tls.key().toString(),
                    "--tls-ca-cert-file",
                    tls.ca().toString(),
                    "--tls-auth-clients",
                    tls.requireClientCertificate() ? "yes" : "no"));
        }
        command.addAll(List.of(
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--dir",
                dir.toString(),
                "--logfile",
                "",
                "--loglevel",
                "notice"));
        command.addAll(extraArguments);
        return ServerProcess.builder()
                .name((tls != null ? "TLS " : "") + "redis-server on 127.0.0.1:" + port)
                .command(command)
                .readiness(ReadinessCheck.logLineMatches("Ready to accept connections")
                        .and(ReadinessCheck.tcpPortOpen(port)))
                .startupTimeout(Duration.ofSeconds(30))
                .stopTimeout(Duration.ofSeconds(5))
                .deleteOnClose(dir);
    }

    /**
     * The URI of a server from {@link #process}.
     *
     * @param port its port
     * @param tls whether it serves TLS
     * @return {@code redis://127.0.0.1:port} or {@code rediss://127.0.0.1:port}
     */
    public static String uri(int port, boolean tls) {
        return (tls ? "rediss" : "redis") + "://127.0.0.1:" + port;
    }
}

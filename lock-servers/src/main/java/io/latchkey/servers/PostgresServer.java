package io.latchkey.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The recipe for a throw-away PostgreSQL, shared by the test fixtures and the CLI's {@code bench}: Debian's
 * binaries ({@code postgresql}, in {@code /usr/lib/postgresql/N/bin}), {@code initdb} into {@code dir/data}
 * (trust authentication), {@code postgres} in the foreground on a loopback port with its socket in {@code dir},
 * durability relaxed for speed ({@code fsync=off}), and dynamic shared memory in the data directory
 * ({@code mmap}) so that even a killed server leaves nothing in {@code /dev/shm}. PostgreSQL refuses to run as
 * root, so a root JVM runs it as the {@code postgres} user, which then owns {@code dir}. Stateless.
 */
public final class PostgresServer {
    /** The server binary to find with {@link Binaries}. */
    public static final String BINARY = "postgres";
    /** The Debian package that brings it. */
    public static final String DEBIAN_PACKAGE = "postgresql";
    /** The database user (and, for a root JVM, the operating-system user) the server runs as. */
    public static final String USER = "postgres";

    private PostgresServer() {}

    /**
     * The {@code initdb} next to a {@code postgres} binary (Debian puts both in one directory).
     *
     * @param postgres the server binary
     * @return the executable, or empty if it is not there
     * @throws IOException if the binary's real path cannot be read
     */
    public static Optional<Path> initdb(Path postgres) throws IOException {
        Path initdb = postgres.toRealPath().getParent().resolve("initdb");
        return Files.isExecutable(initdb) ? Optional.of(initdb) : Optional.empty();
    }

    /**
     * Creates the cluster in {@code dir/data} with {@code initdb} (log in {@code dir/initdb.log}).
     *
     * @param initdb from {@link #initdb(Path)}
     * @param dir an empty directory the caller deletes
     * @param started told about the {@code initdb} process as soon as it exists
     * @throws IOException if it fails
     * @throws InterruptedException if interrupted
     */
    public static void initialize(Path initdb, Path dir, Consumer<Process> started)
            throws IOException, InterruptedException {
        RunAsUser.giveOwnership(dir, USER);
        SetupCommand.run(
                "initdb",
                RunAsUser.wrap(
                        USER,
                        List.of(
                                initdb.toString(),
                                "-D",
                                dir.resolve("data").toString(),
                                "-U",
                                USER,
                                "-A",
                                "trust",
                                "-E",
                                "UTF8",
                                "--locale=C",
                                "--no-sync")),
                dir.resolve("initdb.log"),
                Duration.ofSeconds(120),
                started);
    }

    /**
     * The server process for the cluster in {@code dir}, not started; it deletes {@code dir} on close. It stops
     * with SIGINT, PostgreSQL's "fast" shutdown, which ends client sessions as a real restart would (SIGTERM's
     * "smart" shutdown waits for clients that reconnect, such as pools, until it is killed).
     *
     * @param postgres the server binary
     * @param dir the directory given to {@link #initialize}
     * @param port a free loopback port
     * @param maxConnections the server's {@code max_connections}
     * @return the builder, for a caller's name or other changes
     * @throws IOException if the binary's real path cannot be read
     */
    public static ServerProcessBuilder process(Path postgres, Path dir, int port, int maxConnections)
            throws IOException {
        return ServerProcess.builder()
                .name("postgres on 127.0.0.1:" + port)
                .command(
                        postgres.toRealPath().toString(),
                        "-D",
                        dir.resolve("data").toString(),
                        "-p",
                        Integer.toString(port),
                        "-c",
                        "listen_addresses=127.0.0.1",
                        "-c",
                        "unix_socket_directories=" + dir,
                        "-c",
                        "max_connections=" + maxConnections,
                        "-c",
                        "shared_buffers=32MB",
                        "-c",
                        "fsync=off",
                        "-c",
                        "full_page_writes=off",
                        "-c",
                        "logging_collector=off",
                        "-c",
                        "dynamic_shared_memory_type=mmap")
                .runAsUser(USER)
                .readiness(ReadinessCheck.logLineMatches("ready to accept connections")
                        .and(ReadinessCheck.tcpPortOpen(port)))
                .startupTimeout(Duration.ofSeconds(60))
                .stopTimeout(Duration.ofSeconds(20))
                .stopSignal("INT")
                .deleteOnClose(dir);
    }

    /**
     * The JDBC URL of a server from {@link #process}.
     *
     * @param port its port
     * @return e.g. {@code jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}
     */
    public static String jdbcUrl(int port) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=" + USER;
    }
}

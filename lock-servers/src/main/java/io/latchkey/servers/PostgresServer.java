package io.latchkey.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
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
 * root, so a root JVM runs it as the {@code postgres} user, which then owns {@code dir}. {@link #requireTls}
 * turns a cluster into a TLS-only one (between {@link #initialize} and {@link #process}). Stateless.
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
     * Makes the cluster in {@code dir} serve TLS only: copies the certificate and key into {@code dir/data}
     * ({@code server.crt}, {@code server.key}; owned by {@value #USER} for a root JVM, the key with mode 0600 as
     * PostgreSQL demands), turns on {@code ssl} with them in {@code postgresql.conf}, and replaces
     * {@code pg_hba.conf} with {@code hostssl} rules only (loopback; {@value #USER} trusted, every other role by its
     * password, {@code scram-sha-256}), so a plaintext TCP connection is refused ("no pg_hba.conf entry ... no
     * encryption") and there is no Unix-socket rule either. Call it after
     * {@link #initialize} and before the server starts; a restart keeps it.
     *
     * @param dir the directory given to {@link #initialize}
     * @param certificate the server certificate (PEM), e.g. {@link TestCertificates#serverCertificate()}
     * @param key its unencrypted private key (PEM), e.g. {@link TestCertificates#serverKey()}
     * @throws IllegalArgumentException if {@code dir} holds no cluster or a file is not a readable regular file
     * @throws IOException if a file cannot be written
     */
    public static void requireTls(Path dir, Path certificate, Path key) throws IOException {
        Path data = dir == null ? null : dir.resolve("data");
        if (data == null || !Files.isRegularFile(data.resolve("postgresql.conf"))) {
            throw new IllegalArgumentException(
                    "requireTls needs a cluster made by PostgresServer.initialize: no data/postgresql.conf in " + dir);
        }
        requireReadableFile("certificate", certificate);
        requireReadableFile("key", key);
        Path crt = data.resolve("server.crt");
        Path pem = data.resolve("server.key");
        Files.copy(certificate, crt, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(key, pem, StandardCopyOption.REPLACE_EXISTING);
        Files.setPosixFilePermissions(crt, PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(pem, PosixFilePermissions.fromString("rw-------"));
        RunAsUser.giveOwnership(crt, USER);
        RunAsUser.giveOwnership(pem, USER);
        Files.writeString(
                data.resolve("postgresql.conf"),
                "\n# PostgresServer.requireTls\nssl = on\nssl_cert_file = '" + crt + "'\nssl_key_file = '" + pem
                        + "'\n",
                StandardOpenOption.APPEND);
        // truncating the existing file keeps its owner (the server user)
        Files.writeString(
                data.resolve("pg_hba.conf"),
                "# PostgresServer.requireTls: TLS over TCP only; no host (plaintext) and no local (socket) rule;\n"
                        + "# the superuser is trusted, every other role logs in with its password\n"
                        + "hostssl all " + USER + " 127.0.0.1/32 trust\n"
                        + "hostssl all " + USER + " ::1/128 trust\n"
                        + "hostssl all all 127.0.0.1/32 scram-sha-256\n"
                        + "hostssl all all ::1/128 scram-sha-256\n",
                StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
    }

    private static void requireReadableFile(String what, Path file) {
        if (file == null || !Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException("the TLS " + what + " must be a readable file, was " + file);
        }
        if (file.toString().contains("'")) {
            throw new IllegalArgumentException("the TLS " + what + " path must not contain a quote, was " + file);
        }
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

    /**
     * The JDBC URL of a server made TLS-only by {@link #requireTls}, with pgjdbc's full verification: the
     * certificate must chain to {@code caCertificate} and name the host ({@code 127.0.0.1}).
     *
     * @param port its port
     * @param caCertificate the CA to trust (PEM), e.g. {@link TestCertificates#caCertificate()}
     * @return e.g. {@code jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres&sslmode=verify-full&sslrootcert=/tmp/ca.crt}
     * @throws IllegalArgumentException if the path has a character that would need escaping in a URL
     */
    public static String jdbcUrl(int port, Path caCertificate) {
        return jdbcUrl(port) + "&sslmode=verify-full&sslrootcert=" + TlsUrls.plainPath(caCertificate);
    }
}

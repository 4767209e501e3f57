package io.latchkey.servers;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The recipe for a throw-away MariaDB, shared by the test fixtures and the CLI's {@code bench}: Debian's
 * {@code mariadbd} ({@code mariadb-server}) with its own data directory ({@code mariadb-install-db}), socket,
 * pid file and loopback port, grant tables skipped (every client may KILL), durability relaxed for speed, and
 * the database {@value #DATABASE} created. Runs as the JVM's user ({@code mariadbd --user=root} is allowed
 * where PostgreSQL would refuse). The database is created over JDBC, so a MariaDB driver must be on the class
 * path of the caller. {@link #tlsProcess} is a TLS-only server ({@code require_secure_transport=ON}), whose
 * database is created with {@link #createDatabase(int, Path)} and reached by {@link #jdbcUrl(int, Path)}.
 * Stateless.
 */
public final class MariaDbServer {
    /** The server binary to find with {@link Binaries}. */
    public static final String BINARY = "mariadbd";
    /** The setup binary that creates a data directory. */
    public static final String INSTALL_DB = "mariadb-install-db";
    /** The Debian package that brings both. */
    public static final String DEBIAN_PACKAGE = "mariadb-server";
    /** The database {@link #createDatabase(int)} creates. */
    public static final String DATABASE = "latchkey";

    private MariaDbServer() {}

    private static String user() {
        return RunAsUser.isRoot() ? "root" : RunAsUser.currentUser();
    }

    /**
     * Creates the data directory {@code dir/data} (log in {@code dir/install.log}).
     *
     * @param installDb the {@value #INSTALL_DB} executable
     * @param dir an empty directory the caller deletes
     * @param started told about the setup process as soon as it exists
     * @throws IOException if it fails
     * @throws InterruptedException if interrupted
     */
    public static void initialize(Path installDb, Path dir, Consumer<Process> started)
            throws IOException, InterruptedException {
        SetupCommand.run(
                INSTALL_DB,
                List.of(
                        installDb.toString(),
                        "--no-defaults",
                        "--datadir=" + dir.resolve("data"),
                        "--user=" + user(),
                        "--auth-root-authentication-method=normal",
                        "--skip-test-db",
                        "--skip-name-resolve"),
                dir.resolve("install.log"),
                Duration.ofSeconds(180),
                started);
    }

    /**
     * The server process for the data directory in {@code dir}, not started; it deletes {@code dir} on close.
     *
     * @param mariadbd the server binary
     * @param dir the directory given to {@link #initialize}
     * @param port a free loopback port
     * @param maxConnections the server's {@code max-connections}
     * @return the builder, for a caller's name or other changes
     */
    public static ServerProcessBuilder process(Path mariadbd, Path dir, int port, int maxConnections) {
        return process(mariadbd, dir, port, maxConnections, List.of("--skip-grant-tables"));
    }

    /**
     * The server process of {@link #process(Path, Path, int, int)}, but serving TLS only: {@code ssl-ca},
     * {@code ssl-cert}, {@code ssl-key} from {@code certs} and {@code require_secure_transport=ON}, so a plaintext
     * TCP connection is refused. Its grant tables are <em>not</em> skipped, because the server enforces
     * {@code require_secure_transport} only when it checks logins: {@link #initialize} made {@code root} on
     * {@code localhost} and {@code 127.0.0.1} without a password and with every privilege (KILL included).
     * Create the database with {@link #createDatabase(int, Path)}.
     *
     * @param mariadbd the server binary
     * @param dir the directory given to {@link #initialize}
     * @param port a free loopback port
     * @param maxConnections the server's {@code max-connections}
     * @param certs the certificates (the server runs as the JVM's user, which can read them)
     * @return the builder, for a caller's name or other changes
     * @throws IllegalArgumentException if {@code certs} is null
     */
    public static ServerProcessBuilder tlsProcess(
            Path mariadbd, Path dir, int port, int maxConnections, TestCertificates certs) {
        if (certs == null) {
            throw new IllegalArgumentException("a TLS server needs its TestCertificates, was null");
        }
        return process(
                mariadbd,
                dir,
                port,
                maxConnections,
                List.of(
                        "--ssl-ca=" + certs.caCertificate(),
                        "--ssl-cert=" + certs.serverCertificate(),
                        "--ssl-key=" + certs.serverKey(),
                        "--require-secure-transport=ON"));
    }

    private static ServerProcessBuilder process(
            Path mariadbd, Path dir, int port, int maxConnections, List<String> options) {
        List<String> command = new ArrayList<>(List.of(
                mariadbd.toString(),
                "--no-defaults",
                "--datadir=" + dir.resolve("data"),
                "--user=" + user(),
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--socket=" + dir.resolve("mysqld.sock"),
                "--pid-file=" + dir.resolve("mysqld.pid")));
        command.addAll(options);
        command.addAll(List.of(
                "--skip-name-resolve",
                "--max-connections=" + maxConnections,
                "--innodb-buffer-pool-size=64M",
                "--innodb-log-file-size=48M",
                "--innodb-flush-log-at-trx-commit=2",
                "--skip-log-bin",
                "--character-set-server=utf8mb4"));
        return ServerProcess.builder()
                .name("mariadbd on 127.0.0.1:" + port)
                .command(command)
                .readiness(
                        ReadinessCheck.logLineMatches("ready for connections").and(ReadinessCheck.tcpPortOpen(port)))
                .startupTimeout(Duration.ofSeconds(90))
                .stopTimeout(Duration.ofSeconds(30))
                .deleteOnClose(dir);
    }

    /**
     * Creates the database {@value #DATABASE} on a started server, if it is not there.
     *
     * @param port the server's port
     * @throws SQLException if that fails (or no MariaDB driver is on the class path)
     */
    public static void createDatabase(int port) throws SQLException {
        createDatabase("jdbc:mariadb://127.0.0.1:" + port + "/?user=root");
    }

    /**
     * Creates the database {@value #DATABASE} on a started TLS-only server ({@link #tlsProcess}), over TLS
     * with full verification.
     *
     * @param port the server's port
     * @param caCertificate the CA that signed the server's certificate (PEM)
     * @throws SQLException if that fails (or no MariaDB driver is on the class path)
     * @throws IllegalArgumentException if the path has a character that would need escaping in a URL
     */
    public static void createDatabase(int port, Path caCertificate) throws SQLException {
        createDatabase("jdbc:mariadb://127.0.0.1:" + port + "/?user=root" + tlsParameters(caCertificate));
    }

    private static void createDatabase(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE);
        }
    }

    private static String tlsParameters(Path caCertificate) {
        return "&sslMode=verify-full&serverSslCert=" + TlsUrls.plainPath(caCertificate);
    }

    /**
     * The JDBC URL of the database {@value #DATABASE} on a server from {@link #process}.
     *
     * @param port its port
     * @return e.g. {@code jdbc:mariadb://127.0.0.1:3306/latchkey?user=root}
     */
    public static String jdbcUrl(int port) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + DATABASE + "?user=root";
    }

    /**
     * The JDBC URL of the database {@value #DATABASE} on a TLS-only server, with MariaDB Connector/J's full
     * verification: the certificate must chain to {@code caCertificate} and name the host ({@code 127.0.0.1}).
     *
     * @param port its port
     * @param caCertificate the CA to trust (PEM), e.g. {@link TestCertificates#caCertificate()}
     * @return e.g. {@code jdbc:mariadb://127.0.0.1:3306/latchkey?user=root&sslMode=verify-full&serverSslCert=/tmp/ca.crt}
     * @throws IllegalArgumentException if the path has a character that would need escaping in a URL
     */
    public static String jdbcUrl(int port, Path caCertificate) {
        return jdbcUrl(port) + tlsParameters(caCertificate);
    }
}

package io.latchkey.cli;

import io.latchkey.servers.FreePorts;
import io.latchkey.servers.ReadinessCheck;
import io.latchkey.servers.RunAsUser;
import io.latchkey.servers.ServerProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * A throw-away MariaDB for {@code bench}: Debian's {@code mariadbd} ({@code mariadb-server}) with its own
 * data directory ({@code mariadb-install-db}), socket, pid file and free loopback port, grant tables
 * skipped, durability relaxed as in lock-jdbc's test fixture, and a database {@code latchkey} created. Runs
 * as the JVM's user ({@code mariadbd --user=root} is allowed where PostgreSQL would refuse). Called on the
 * main thread; everything it makes is handed to the caller's clean-up.
 */
final class LocalMariaDb {
    private static final String PACKAGE = "mariadb-server";
    private static final String URI_EXAMPLE = "jdbc:mariadb://host:3306/db?user=u";

    private LocalMariaDb() {
    }

    /** Starts a server sized for {@code clients} bench clients and returns its JDBC URL. */
    static String start(int clients, BenchCleanup cleanup) throws IOException, InterruptedException, SQLException {
        Path mariadbd = LocalServers.require("mariadbd", PACKAGE, URI_EXAMPLE);
        Path installDb = LocalServers.require("mariadb-install-db", PACKAGE, URI_EXAMPLE);
        Path dir = LocalServers.temporaryDirectory(null, "latchkey-bench-mariadb-", cleanup);
        Path data = dir.resolve("data");
        String user = RunAsUser.isRoot() ? "root" : RunAsUser.currentUser();
        LocalServers.runSetup("mariadb-install-db", List.of(installDb.toString(), "--no-defaults", "--datadir=" + data,
                "--user=" + user, "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"),
                dir.resolve("install.log"), 180, cleanup);
        int port = FreePorts.find();
        ServerProcess server = ServerProcess.builder()
                .name("mariadbd for bench on 127.0.0.1:" + port)
                .command(mariadbd.toString(), "--no-defaults", "--datadir=" + data, "--user=" + user, "--port=" + port,
                        "--bind-address=127.0.0.1", "--socket=" + dir.resolve("mysqld.sock"),
                        "--pid-file=" + dir.resolve("mysqld.pid"), "--skip-grant-tables", "--skip-name-resolve",
                        "--max-connections=" + Math.max(150, clients * 10 + 20), "--innodb-buffer-pool-size=64M",
                        "--innodb-log-file-size=48M", "--innodb-flush-log-at-trx-commit=2", "--skip-log-bin",
                        "--character-set-server=utf8mb4")
                .readiness(ReadinessCheck.logLineMatches("ready for connections").and(ReadinessCheck.tcpPortOpen(port)))
                .startupTimeout(Duration.ofSeconds(90))
                .stopTimeout(Duration.ofSeconds(30))
                .deleteOnClose(dir)
                .build();
        LocalServers.start(server, cleanup);
        try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/?user=root");
             Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE IF NOT EXISTS latchkey");
        }
        return "jdbc:mariadb://127.0.0.1:" + port + "/latchkey?user=root";
    }
}

package io.latchkey.cli;

import io.latchkey.servers.FreePorts;
import io.latchkey.servers.MariaDbServer;
import io.latchkey.servers.ServerProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;

/**
 * A throw-away MariaDB for {@code bench}, from lock-servers' {@link MariaDbServer} recipe (the one the lock-jdbc
 * test fixture uses): Debian's {@code mariadbd} with its own data directory, socket and free loopback port,
 * grant tables skipped, durability relaxed, and a database {@code latchkey} created. Here the server is sized
 * for the bench clients. Called on the main thread; everything it makes is handed to the caller's clean-up.
 */
final class LocalMariaDb {
    private static final String URI_EXAMPLE = "jdbc:mariadb://host:3306/db?user=u";

    private LocalMariaDb() {}

    /** Starts a server sized for {@code clients} bench clients and returns its JDBC URL. */
    static String start(int clients, BenchCleanup cleanup) throws IOException, InterruptedException, SQLException {
        Path mariadbd = LocalServers.require(MariaDbServer.BINARY, MariaDbServer.DEBIAN_PACKAGE, URI_EXAMPLE);
        Path installDb = LocalServers.require(MariaDbServer.INSTALL_DB, MariaDbServer.DEBIAN_PACKAGE, URI_EXAMPLE);
        Path dir = LocalServers.temporaryDirectory(null, "latchkey-bench-mariadb-", cleanup);
        LocalServers.setup(started -> MariaDbServer.initialize(installDb, dir, started), cleanup);
        int port = FreePorts.find();
        ServerProcess server = MariaDbServer.process(mariadbd, dir, port, Math.max(150, clients * 10 + 20))
                .name("mariadbd for bench on 127.0.0.1:" + port)
                .build();
        LocalServers.start(server, cleanup);
        MariaDbServer.createDatabase(port);
        return MariaDbServer.jdbcUrl(port);
    }
}

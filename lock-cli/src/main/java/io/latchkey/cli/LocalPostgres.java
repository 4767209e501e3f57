package io.latchkey.cli;

import io.latchkey.servers.FreePorts;
import io.latchkey.servers.PostgresServer;
import io.latchkey.servers.ServerProcess;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A throw-away PostgreSQL for {@code bench}, from lock-servers' {@link PostgresServer} recipe (the one the
 * lock-jdbc test fixture uses): Debian's binaries, {@code initdb} into a temporary directory, trust
 * authentication, durability relaxed for speed, run as the {@code postgres} user when this JVM is root. Here the
 * server is sized for the bench clients and stopped with SIGTERM by the clean-up. Called on the main thread;
 * everything it makes is handed to the caller's clean-up.
 */
final class LocalPostgres {
    private static final String URI_EXAMPLE = "jdbc:postgresql://host:5432/db?user=u";

    private LocalPostgres() {}

    /** Starts a server sized for {@code clients} bench clients and returns its JDBC URL. */
    static String start(int clients, BenchCleanup cleanup) throws IOException, InterruptedException {
        Path postgres = LocalServers.require(PostgresServer.BINARY, PostgresServer.DEBIAN_PACKAGE, URI_EXAMPLE);
        Path initdb = PostgresServer.initdb(postgres)
                .orElseThrow(() -> new LocalServers.NotStarted(
                        "initdb is not installed next to " + realPath(postgres) + " (Debian: apt-get install "
                                + PostgresServer.DEBIAN_PACKAGE + "); or give the URI of a server you run: "
                                + URI_EXAMPLE,
                        null));
        Path dir = LocalServers.temporaryDirectory(null, "latchkey-bench-pg-", cleanup);
        LocalServers.setup(started -> PostgresServer.initialize(initdb, dir, started), cleanup);
        int port = FreePorts.find();
        // each client's pool keeps up to 10 connections (session mode: one per held or awaited lock)
        int maxConnections = Math.max(100, clients * 10 + 20);
        ServerProcess server = PostgresServer.process(postgres, dir, port, maxConnections)
                .name("postgres for bench on 127.0.0.1:" + port)
                .stopSignal("TERM")
                .build();
        LocalServers.start(server, cleanup);
        return PostgresServer.jdbcUrl(port);
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p;
        }
    }
}

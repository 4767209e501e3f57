package io.latchkey.cli;

import io.latchkey.servers.FreePorts;
import io.latchkey.servers.ReadinessCheck;
import io.latchkey.servers.RunAsUser;
import io.latchkey.servers.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A throw-away PostgreSQL for {@code bench}: Debian's binaries ({@code postgresql}, found in
 * {@code /usr/lib/postgresql/N/bin}), {@code initdb} into a temporary directory, {@code postgres} in the
 * foreground on a free loopback port with its socket in that directory, trust authentication, and durability
 * relaxed for speed as in lock-jdbc's test fixture ({@code fsync=off}). PostgreSQL refuses to run as root, so
 * when this JVM is root it runs as the {@code postgres} user, which then owns the directory. Dynamic shared
 * memory lives in the data directory ({@code mmap}), so that even a killed server leaves nothing in
 * {@code /dev/shm}. Called on the main thread; everything it makes is handed to the caller's clean-up.
 */
final class LocalPostgres {
    private static final String USER = "postgres";
    private static final String PACKAGE = "postgresql";
    private static final String URI_EXAMPLE = "jdbc:postgresql://host:5432/db?user=u";

    private LocalPostgres() {
    }

    /** Starts a server sized for {@code clients} bench clients and returns its JDBC URL. */
    static String start(int clients, BenchCleanup cleanup) throws IOException, InterruptedException {
        Path postgres = LocalServers.require("postgres", PACKAGE, URI_EXAMPLE);
        Path bin = postgres.toRealPath().getParent();
        Path initdb = bin.resolve("initdb");
        if (!Files.isExecutable(initdb)) {
            throw new LocalServers.NotStarted("initdb is not installed next to " + postgres.toRealPath()
                    + " (Debian: apt-get install " + PACKAGE + "); or give the URI of a server you run: " + URI_EXAMPLE, null);
        }
        Path dir = LocalServers.temporaryDirectory(null, "latchkey-bench-pg-", cleanup);
        RunAsUser.giveOwnership(dir, USER);
        Path data = dir.resolve("data");
        LocalServers.runSetup("initdb", RunAsUser.wrap(USER, List.of(initdb.toString(), "-D", data.toString(), "-U", USER,
                "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")), dir.resolve("initdb.log"), 120, cleanup);
        int port = FreePorts.find();
        // each client's pool keeps up to 10 connections (session mode: one per held or awaited lock)
        int maxConnections = Math.max(100, clients * 10 + 20);
        ServerProcess server = ServerProcess.builder()
                .name("postgres for bench on 127.0.0.1:" + port)
                .command(postgres.toRealPath().toString(), "-D", data.toString(), "-p", Integer.toString(port),
                        "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + dir,
                        "-c", "max_connections=" + maxConnections, "-c", "shared_buffers=32MB",
                        "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "logging_collector=off",
                        "-c", "dynamic_shared_memory_type=mmap")
                .runAsUser(USER)
                .readiness(ReadinessCheck.logLineMatches("ready to accept connections").and(ReadinessCheck.tcpPortOpen(port)))
                .startupTimeout(Duration.ofSeconds(60))
                .stopTimeout(Duration.ofSeconds(20))
                .deleteOnClose(dir)
                .build();
        LocalServers.start(server, cleanup);
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=" + USER;
    }
}

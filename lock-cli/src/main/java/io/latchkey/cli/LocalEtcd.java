package io.latchkey.cli;

import io.latchkey.servers.FreePorts;
import io.latchkey.servers.ReadinessCheck;
import io.latchkey.servers.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A throw-away one-member etcd for {@code bench}: Debian's {@code etcd} ({@code etcd-server}) on free loopback
 * client and peer ports, with a temporary data directory. etcd 3.4 cannot turn fsync off, so the directory is
 * put on {@code /dev/shm} (tmpfs) where there is one, as lock-etcd's test fixture does: an fsync then costs
 * microseconds, in line with the other servers bench starts, whose durability is relaxed too. Called on the
 * main thread; everything it makes is handed to the caller's clean-up.
 */
final class LocalEtcd {
    private static final Path TMPFS = Path.of("/dev/shm");

    private LocalEtcd() {
    }

    /** Starts the member and returns its {@code etcd://} URI. */
    static String start(BenchCleanup cleanup) throws IOException {
        Path etcd = LocalServers.require("etcd", "etcd-server", "etcd://host:2379");
        Path parent = Files.isDirectory(TMPFS) && Files.isWritable(TMPFS) ? TMPFS : null;
        Path dir = LocalServers.temporaryDirectory(parent, "latchkey-bench-etcd-", cleanup);
        List<Integer> ports = FreePorts.find(2);
        String client = "http://127.0.0.1:" + ports.get(0);
        String peer = "http://127.0.0.1:" + ports.get(1);
        String token = "latchkey-bench-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        ServerProcess server = ServerProcess.builder()
                .name("etcd for bench on 127.0.0.1:" + ports.get(0))
                .command(etcd.toString(), "--name", "bench", "--data-dir", dir.resolve("data").toString(),
                        "--listen-client-urls", client, "--advertise-client-urls", client,
                        "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                        "--initial-cluster", "bench=" + peer, "--initial-cluster-state", "new",
                        "--initial-cluster-token", token, "--logger", "zap", "--log-outputs", "stderr")
                .readiness(ReadinessCheck.logLineMatches("serving client traffic"))
                .startupTimeout(Duration.ofSeconds(60))
                .deleteOnClose(dir)
                .build();
        LocalServers.start(server, cleanup);
        return "etcd://127.0.0.1:" + ports.get(0);
    }
}

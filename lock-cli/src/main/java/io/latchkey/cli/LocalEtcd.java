package io.latchkey.cli;

import io.latchkey.servers.Directories;
import io.latchkey.servers.EtcdServer;
import io.latchkey.servers.FreePorts;
import io.latchkey.servers.ServerProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A throw-away one-member etcd for {@code bench}, from lock-servers' {@link EtcdServer} recipe (the one the
 * lock-etcd test fixture uses): Debian's {@code etcd} on free loopback client and peer ports, its data on
 * {@code /dev/shm} (tmpfs) where there is one, since etcd 3.4 cannot turn fsync off: an fsync then costs
 * microseconds, in line with the other servers bench starts, whose durability is relaxed too. Called on the
 * main thread; everything it makes is handed to the caller's clean-up.
 */
final class LocalEtcd {
    private LocalEtcd() {}

    /** Starts the member and returns its {@code etcd://} URI. */
    static String start(BenchCleanup cleanup) throws IOException {
        Path etcd = LocalServers.require(EtcdServer.BINARY, EtcdServer.DEBIAN_PACKAGE, "etcd://host:2379");
        Path dir = EtcdServer.dataRoot("latchkey-bench-etcd-", false);
        cleanup.add(() -> Directories.deleteRecursively(dir));
        List<Integer> ports = FreePorts.find(2);
        ServerProcess server = EtcdServer.members(etcd, dir, ports, null, List.of())
                .get(0)
                .name("etcd for bench on 127.0.0.1:" + ports.get(0))
                .build();
        LocalServers.start(server, cleanup);
        return "etcd://127.0.0.1:" + ports.get(0);
    }
}

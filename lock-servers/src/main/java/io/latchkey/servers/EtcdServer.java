package io.latchkey.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The recipe for throw-away etcd, shared by the test fixtures and the CLI's {@code bench}: one member or a
 * cluster, each a Debian {@code etcd} ({@code etcd-server}) on loopback client and peer ports with its own data
 * directory, ready when it logs that it serves client traffic. Clients may be served over TLS ({@link Tls});
 * peers stay on plain loopback http.
 *
 * <p>fsync: etcd 3.4 has no {@code --unsafe-no-fsync}; every write is fsynced. {@link #dataRoot(String, boolean)} puts
 * the data on {@code /dev/shm} (tmpfs) where there is one, so that an fsync costs microseconds rather than a
 * disk flush, in line with the relaxed durability of the other servers. Stateless.
 */
public final class EtcdServer {
    /** The server binary to find with {@link Binaries}. */
    public static final String BINARY = "etcd";
    /** The Debian package that brings it. */
    public static final String DEBIAN_PACKAGE = "etcd-server";

    private static final Path TMPFS = Path.of("/dev/shm");

    /**
     * How members serve clients over TLS.
     *
     * @param certificate the server certificate (PEM)
     * @param key its private key (PEM)
     * @param clientCa the CA client certificates must be signed by, or {@code null} to require none
     */
    public record Tls(Path certificate, Path key, Path clientCa) {}

    private EtcdServer() {}

    /**
     * A new temporary directory for members' data: on tmpfs when there is a writable {@code /dev/shm} and
     * {@code onDisk} is false, else in the default temporary directory. The caller deletes it.
     *
     * @param prefix the start of its name, e.g. {@code latchkey-etcd-}
     * @param onDisk keep the data on disk even if tmpfs exists
     * @return the directory
     * @throws IOException if it cannot be created
     */
    public static Path dataRoot(String prefix, boolean onDisk) throws IOException {
        return onTmpfs(onDisk) ? Files.createTempDirectory(TMPFS, prefix) : Files.createTempDirectory(prefix);
    }

    /**
     * Whether {@link #dataRoot(String, boolean)} would choose tmpfs.
     *
     * @param onDisk keep the data on disk even if tmpfs exists
     * @return {@code true} for tmpfs
     */
    public static boolean onTmpfs(boolean onDisk) {
        return !onDisk && Files.isDirectory(TMPFS) && Files.isWritable(TMPFS);
    }

    /**
     * The member processes of a new cluster, not started; member {@code i} is named {@code m<i>}, has its data in
     * {@code dataRoot/m<i>} (deleted on close), and listens on {@code ports[2i]} for clients and
     * {@code ports[2i+1]} for peers. Start them together, e.g. with {@link ProcessGroup#startAll()}.
     *
     * @param etcd the binary
     * @param dataRoot from {@link #dataRoot(String, boolean)}
     * @param ports two free loopback ports per member
     * @param tls how clients are served over TLS, or {@code null} for plain http
     * @param extraArguments more command-line arguments for every member, e.g. {@code --auth-token-ttl 1}
     * @return one builder per member
     */
    public static List<ServerProcessBuilder> members(
            Path etcd, Path dataRoot, List<Integer> ports, Tls tls, List<String> extraArguments) {
        if (ports.isEmpty() || ports.size() % 2 != 0) {
            throw new IllegalArgumentException("etcd members need two ports each (client, peer), was " + ports);
        }
        int size = ports.size() / 2;
        String token = "latchkey-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            peers.add("m" + i + "=http://127.0.0.1:" + ports.get(2 * i + 1));
        }
        List<ServerProcessBuilder> members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            int peer = ports.get(2 * i + 1);
            Path data = dataRoot.resolve("m" + i);
            String clientUrl = (tls == null ? "http" : "https") + "://127.0.0.1:" + ports.get(2 * i);
            List<String> command = new ArrayList<>(List.of(
                    etcd.toString(),
                    "--name",
                    "m" + i,
                    "--data-dir",
                    data.toString(),
                    "--listen-client-urls",
                    clientUrl,
                    "--advertise-client-urls",
                    clientUrl,
                    "--listen-peer-urls",
                    "http://127.0.0.1:" + peer,
                    "--initial-advertise-peer-urls",
                    "http://127.0.0.1:" + peer,
                    "--initial-cluster",
                    String.join(",", peers),
                    "--initial-cluster-state",
                    "new",
                    "--initial-cluster-token",
                    token,
                    "--logger",
                    "zap",
                    "--log-outputs",
                    "stderr"));
            if (tls != null) {
                command.addAll(List.of(
                        "--cert-file",
                        tls.certificate().toString(),
                        "--key-file",
                        tls.key().toString()));
                if (tls.clientCa() != null) {
                    command.addAll(List.of(
                            "--client-cert-auth",
                            "--trusted-ca-file",
                            tls.clientCa().toString()));
                }
            }
            command.addAll(extraArguments);
            members.add(ServerProcess.builder()
                    .name("etcd m" + i + " on " + clientUrl)
                    .command(command)
                    .readiness(ReadinessCheck.logLineMatches("serving client traffic"))
                    .startupTimeout(Duration.ofSeconds(60))
                    .deleteOnClose(data));
        }
        return members;
    }
}

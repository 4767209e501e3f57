package io.latchkey.cli;

import io.latchkey.BackendUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.h2.tools.Server;

/**
 * The embedded default's store: the H2 database file {@code ~/.latchkey/locks.mv.db}, served to every
 * {@code latchkey} process of the user on this machine by one small H2 TCP server on loopback, which the
 * first process starts on demand and which stops itself after a while without clients.
 *
 * <p>Why not H2's own automatic mixed mode ({@code AUTO_SERVER=TRUE})? There, the process that happens to
 * open the file first serves it and every other process depends on it; {@code latchkey exec} processes are
 * short-lived, so the file changes hands all the time, and processes started by the same cron tick race to
 * open it: H2's file lock then fails them with "Lock file recently modified" after waiting seconds. Measured
 * here: 3 of 18 simultaneous runs failed. With one server that outlives the jobs nothing changes hands.
 *
 * <p>Start-up is serialised between processes by an OS file lock on {@code ~/.latchkey/server.lock}
 * (released by the OS if a process dies): under it a process reads {@code server.properties} (port, random
 * password, pid), checks that the server answers, starts one if not (detached with {@code setsid}, so that
 * Ctrl-C in a terminal does not reach it), and opens its connection pool before letting go, so the server's
 * idle check (which takes the same lock) never stops a server a process is about to use. The server
 * accepts loopback connections only, and the database has a random password kept in a file only the user
 * can read ({@code ~/.latchkey} is mode 700).
 *
 * <p>Concurrency inside one process: used once per command on the main thread; the server's idle check runs
 * on its own main thread.
 */
final class EmbeddedServer {
    /** The database's user; its password is random per store, in server.properties. */
    static final String USER = "latchkey";
    /** Environment variable: idle time after which the server stops (default 10m). */
    static final String IDLE_ENV = "LATCHKEY_SERVER_IDLE";

    private static final Duration DEFAULT_IDLE = Duration.ofMinutes(10);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private EmbeddedServer() {}

    /** What a client needs: the URI and the settings (credentials) for {@code Latchkey.connect}. */
    record Endpoint(String uri, Map<String, String> settings) {}

    /** The store's directory: {@code ~/.latchkey}. */
    static Path directory() {
        return Paths.get(System.getProperty("user.home"), ".latchkey");
    }

    /**
     * Makes sure the server runs and runs {@code use} with its endpoint while still holding the start-up
     * lock (so that the server cannot stop before {@code use} has connected).
     */
    static <T> T withServer(java.util.function.Function<Endpoint, T> use) {
        Path dir = directory();
        try {
            createPrivateDirectory(dir);
            try (FileChannel channel =
                    FileChannel.open(dir.resolve("server.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                FileLock lock = channel.lock();
                try {
                    Properties p = running(dir).orElseGet(() -> start(dir));
                    String uri = "jdbc:h2:tcp://127.0.0.1:" + p.getProperty("port") + "/locks";
                    return use.apply(new Endpoint(uri, Map.of("user", USER, "password", p.getProperty("password"))));
                } finally {
                    lock.release();
                }
            }
        } catch (IOException | UncheckedIOException e) {
            Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
            throw new BackendUnavailableException(
                    "Could not start or reach the embedded lock store in " + dir + ": " + cause.getMessage(),
                    null,
                    "embedded H2 (" + dir + ")",
                    cause);
        }
    }

    /** The properties of a server that answers, if one does. */
    private static Optional<Properties> running(Path dir) throws IOException {
        Path file = dir.resolve("server.properties");
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        }
        String port = p.getProperty("port");
        if (port == null || p.getProperty("password") == null) {
            return Optional.empty();
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(port)), 2000);
            return Optional.of(p);
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Starts a detached server process and waits until it answers. Called under the start-up lock. */
    private static Properties start(Path dir) {
        try {
            Files.deleteIfExists(dir.resolve("server.properties"));
            List<String> cmd = new ArrayList<>();
            if (Files.isExecutable(Paths.get("/usr/bin/setsid")) || Files.isExecutable(Paths.get("/bin/setsid"))) {
                cmd.add("setsid");
            }
            cmd.add(ProcessHandle.current()
                    .info()
                    .command()
                    .orElse(Paths.get(System.getProperty("java.home"), "bin", "java")
                            .toString()));
            cmd.addAll(List.of(
                    "-Xmx96m",
                    "-XX:TieredStopAtLevel=1",
                    "-XX:+UseSerialGC",
                    "-Dh2.bindAddress=127.0.0.1",
                    "-Duser.home=" + System.getProperty("user.home"),
                    "-cp",
                    ownClassPath(),
                    EmbeddedServer.class.getName(),
                    dir.toString()));
            Process p = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(
                            dir.resolve("server.log").toFile()))
                    .redirectInput(
                            ProcessBuilder.Redirect.from(Paths.get("/dev/null").toFile()))
                    .start();
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            while (System.nanoTime() - deadline < 0) {
                Optional<Properties> up = running(dir);
                if (up.isPresent()) {
                    return up.get();
                }
                if (!p.isAlive() && !cmd.get(0).equals("setsid")) {
                    break;
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
            throw new IOException("the embedded H2 server did not start within "
                    + DurationConverter.format(START_TIMEOUT) + "; see " + dir.resolve("server.log"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted while starting the embedded H2 server"));
        }
    }

    private static String ownClassPath() {
        try {
            return Paths.get(EmbeddedServer.class
                            .getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .toString();
        } catch (URISyntaxException e) {
            return System.getProperty("java.class.path");
        }
    }

    private static void createPrivateDirectory(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
            try {
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system: the user's home directory protects it
            }
        }
    }

    /**
     * The server process: serves {@code DIR/locks} on a free loopback port, writes {@code server.properties}
     * (port, password, pid) and stops after the idle time without client sessions.
     */
    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args[0]);
        Properties props = new Properties();
        Path secret = dir.resolve("server.secret");
        String password;
        if (Files.exists(secret)) {
            password = Files.readString(secret).trim();
        } else {
            byte[] random = new byte[24];
            new SecureRandom().nextBytes(random);
            password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            writePrivate(secret, password);
        }
        Server server = Server.createTcpServer("-tcpPort", "0", "-baseDir", dir.toString(), "-ifNotExists")
                .start();
        props.setProperty("port", Integer.toString(server.getPort()));
        props.setProperty("password", password);
        props.setProperty("pid", Long.toString(ProcessHandle.current().pid()));
        Path tmp = dir.resolve("server.properties.tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            props.store(out, "latchkey embedded H2 server");
        }
        restrict(tmp);
        try {
            Files.move(
                    tmp,
                    dir.resolve("server.properties"),
                    StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, dir.resolve("server.properties"), StandardCopyOption.REPLACE_EXISTING);
        }
        System.out.println("latchkey embedded H2 server on 127.0.0.1:" + server.getPort() + " for " + dir + ", pid "
                + ProcessHandle.current().pid());
        Duration idle = idleTime();
        String url = "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/locks";
        long idleSince = System.nanoTime();
        while (true) {
            TimeUnit.MILLISECONDS.sleep(Math.min(5000, Math.max(200, idle.toMillis() / 4)));
            if (!Files.isDirectory(dir)) {
                break; // the store was deleted (a test's temporary home)
            }
            try (FileChannel channel =
                    FileChannel.open(dir.resolve("server.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                FileLock lock = channel.lock();
                try {
                    if (otherSessions(url, password) > 0) {
                        idleSince = System.nanoTime();
                    } else if (System.nanoTime() - idleSince > idle.toNanos()) {
                        // under the start-up lock: no client is between "server answers" and "connected"
                        Files.deleteIfExists(dir.resolve("server.properties"));
                        System.out.println("no clients for " + DurationConverter.format(idle) + ": stopping");
                        break;
                    }
                } finally {
                    lock.release();
                }
            }
        }
        server.stop();
        System.exit(0);
    }

    private static int otherSessions(String url, String password) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, USER, password);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS")) {
            rs.next();
            return rs.getInt(1) - 1;
        }
    }

    private static Duration idleTime() {
        String value = System.getenv(IDLE_ENV);
        if (value == null || value.isBlank()) {
            return DEFAULT_IDLE;
        }
        try {
            Duration d = DurationConverter.parse(value);
            return d.isZero() ? DEFAULT_IDLE : d;
        } catch (RuntimeException e) {
            System.out.println(
                    IDLE_ENV + "=" + value + " is not a duration; using " + DurationConverter.format(DEFAULT_IDLE));
            return DEFAULT_IDLE;
        }
    }

    private static void writePrivate(Path file, String text) throws IOException {
        Files.writeString(file, text);
        restrict(file);
    }

    private static void restrict(Path file) throws IOException {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system
        }
    }
}

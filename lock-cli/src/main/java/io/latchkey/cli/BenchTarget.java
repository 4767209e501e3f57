package io.latchkey.cli;

import io.latchkey.servers.FreePorts;
import io.latchkey.servers.RedisServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One backend {@code bench} measures: a label, the URI, the settings its clients connect with, and whatever
 * must be cleaned up afterwards (a temporary directory, a server it started). Keywords start something local
 * on loopback, with a temporary data directory and durability relaxed for speed; anything else is a URI the
 * user runs (measured with the user's {@code --setting}s).
 *
 * <ul>
 *   <li>{@code mem}: a named in-memory store in this JVM (the core's cost without any I/O).</li>
 *   <li>{@code h2}: a fresh H2 file database in a temporary directory (the embedded default's engine),
 *       so the user's own locks are not touched.</li>
 *   <li>{@code redis}: {@code redis-server} (Debian {@code redis-server}) without persistence.</li>
 *   <li>{@code postgres}, {@code postgres-session}: PostgreSQL (Debian {@code postgresql}) through
 *       lock-jdbc in its default lease mode, or in session mode ({@link LocalPostgres}).</li>
 *   <li>{@code mariadb}: MariaDB (Debian {@code mariadb-server}) through lock-jdbc, lease mode
 *       ({@link LocalMariaDb}).</li>
 *   <li>{@code zookeeper}: a ZooKeeper server inside this JVM, nothing to install ({@link InProcessZooKeeper}).</li>
 *   <li>{@code etcd}: one etcd member (Debian {@code etcd-server}) ({@link LocalEtcd}).</li>
 * </ul>
 *
 * <p>A server's start-up happens in {@link #start}, before {@link BenchRunner} starts its clock. A keyword
 * whose binary is missing fails with one line naming the Debian package ({@link LocalServers.NotStarted});
 * bench reports it in its table and goes on with the next backend. Created and closed on the main thread;
 * {@link BenchCleanup} also runs the clean-up if the JVM is stopped first (Ctrl-C).
 */
final class BenchTarget implements AutoCloseable {
    static final List<String> KEYWORDS =
            List.of("mem", "h2", "redis", "postgres", "postgres-session", "mariadb", "zookeeper", "etcd");

    final String label;
    final String uri;
    final Map<String, String> settings;
    private final AutoCloseable cleanup;

    private BenchTarget(String label, String uri, Map<String, String> settings, AutoCloseable cleanup) {
        this.label = label;
        this.uri = uri;
        this.settings = Map.copyOf(settings);
        this.cleanup = cleanup;
    }

    /** Whether {@code item} is a keyword (something bench starts) rather than a URI. */
    static boolean isKeyword(String item) {
        return KEYWORDS.contains(item.toLowerCase(Locale.ROOT));
    }

    /**
     * Splits {@code mem,h2,redis://h:6379} into its items. A comma starts a new item only before a keyword
     * or something that looks like a URI ({@code scheme://}, {@code jdbc:}, {@code mem:}), so that
     * {@code redlock://a:1,b:2,c:3} stays whole.
     */
    static List<String> split(String list) {
        List<String> items = new ArrayList<>();
        for (String piece : list.split(",")) {
            String p = piece.trim();
            boolean starts = KEYWORDS.contains(p.toLowerCase(Locale.ROOT))
                    || p.contains("://")
                    || p.startsWith("jdbc:")
                    || p.startsWith("mem:");
            if (starts || items.isEmpty()) {
                items.add(p);
            } else {
                items.set(items.size() - 1, items.get(items.size() - 1) + "," + p);
            }
        }
        items.removeIf(String::isEmpty);
        return items;
    }

    /** Checks an item without starting anything (usage errors come before any work). */
    static void check(String item) {
        if (!isKeyword(item)) {
            BackendUris.check(item, Thread.currentThread().getContextClassLoader());
        }
    }

    /**
     * Prepares the item: starts what a keyword needs, sized for {@code clients} clients. {@code userSettings}
     * apply to URIs only (a keyword brings its own).
     *
     * @throws LocalServers.NotStarted (one line) if a keyword's server cannot be started; nothing is left running
     */
    static BenchTarget start(String item, int clients, Map<String, String> userSettings) {
        String keyword = item.toLowerCase(Locale.ROOT);
        if (!isKeyword(keyword)) {
            return new BenchTarget(io.latchkey.spi.Redaction.redact(item), item, userSettings, () -> {});
        }
        String random = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        BenchCleanup cleanup = new BenchCleanup(keyword);
        try {
            return switch (keyword) {
                case "mem" -> new BenchTarget("mem", "mem:bench-" + random, Map.of(), cleanup);
                case "h2" -> {
                    Path dir = LocalServers.temporaryDirectory(null, "latchkey-bench-h2-", cleanup);
                    yield new BenchTarget(
                            "h2 (embedded file)",
                            "jdbc:h2:file:" + dir.resolve("bench").toAbsolutePath(),
                            Map.of(),
                            cleanup);
                }
                case "redis" -> new BenchTarget("redis (local server)", startRedis(cleanup), Map.of(), cleanup);
                case "postgres" ->
                    new BenchTarget(
                            "postgres (local server)", LocalPostgres.start(clients, cleanup), Map.of(), cleanup);
                case "postgres-session" ->
                    new BenchTarget(
                            "postgres (local server, session mode)",
                            LocalPostgres.start(clients, cleanup),
                            Map.of("mode", "session"),
                            cleanup);
                case "mariadb" ->
                    new BenchTarget("mariadb (local server)", LocalMariaDb.start(clients, cleanup), Map.of(), cleanup);
                case "zookeeper" ->
                    new BenchTarget(
                            "zookeeper (in-process server)", InProcessZooKeeper.start(cleanup), Map.of(), cleanup);
                case "etcd" -> new BenchTarget("etcd (local server)", LocalEtcd.start(cleanup), Map.of(), cleanup);
                default -> throw new IllegalArgumentException("no starter for keyword " + keyword);
            };
        } catch (LocalServers.NotStarted e) {
            cleanup.close();
            throw e;
        } catch (InterruptedException e) {
            cleanup.close();
            Thread.currentThread().interrupt();
            throw new LocalServers.NotStarted("interrupted while starting " + keyword, e);
        } catch (Exception e) {
            cleanup.close();
            throw new LocalServers.NotStarted("could not start " + keyword + ": " + e, e);
        }
    }

    private static String startRedis(BenchCleanup cleanup) throws IOException {
        Path binary = LocalServers.require(RedisServer.BINARY, RedisServer.DEBIAN_PACKAGE, "redis://host:6379");
        Path dir = LocalServers.temporaryDirectory(null, "latchkey-bench-redis-", cleanup);
        int port = FreePorts.find();
        LocalServers.start(
                RedisServer.process(binary, dir, port, null, List.of())
                        .name("redis-server for bench on 127.0.0.1:" + port)
                        .build(),
                cleanup);
        return RedisServer.uri(port, false);
    }

    @Override
    public void close() {
        try {
            cleanup.close();
        } catch (Exception e) {
            org.slf4j.LoggerFactory.getLogger(BenchTarget.class).warn("cleaning up after {}: {}", label, e.toString());
        }
    }
}

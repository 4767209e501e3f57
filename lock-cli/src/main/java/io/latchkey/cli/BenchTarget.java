package io.latchkey.cli;

import io.latchkey.tck.server.Binaries;
import io.latchkey.tck.server.FreePorts;
import io.latchkey.tck.server.ReadinessCheck;
import io.latchkey.tck.server.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * One backend {@code bench} measures: a label, the URI, and whatever must be cleaned up afterwards (a
 * temporary H2 file, a redis-server it started). Keywords start something local; anything else is a URI
 * the user runs. Created and closed on the main thread.
 *
 * <ul>
 *   <li>{@code mem}: a named in-memory store in this JVM (the core's cost without any I/O).</li>
 *   <li>{@code h2}: a fresh H2 file database in a temporary directory (the embedded default's engine),
 *       so the user's own locks are not touched.</li>
 *   <li>{@code redis}: a {@code redis-server} from PATH on a free loopback port, without persistence,
 *       started and stopped with the TCK's server fixtures.</li>
 * </ul>
 */
final class BenchTarget implements AutoCloseable {
    static final List<String> KEYWORDS = List.of("mem", "h2", "redis");

    final String label;
    final String uri;
    private final AutoCloseable cleanup;

    private BenchTarget(String label, String uri, AutoCloseable cleanup) {
        this.label = label;
        this.uri = uri;
        this.cleanup = cleanup;
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
            boolean starts = KEYWORDS.contains(p.toLowerCase(Locale.ROOT)) || p.contains("://")
                    || p.startsWith("jdbc:") || p.startsWith("mem:");
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
        if (!KEYWORDS.contains(item.toLowerCase(Locale.ROOT))) {
            BackendUris.check(item, Thread.currentThread().getContextClassLoader());
        }
    }

    /** Prepares the item: starts what a keyword needs. */
    static BenchTarget start(String item) {
        String random = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        switch (item.toLowerCase(Locale.ROOT)) {
            case "mem" -> {
                return new BenchTarget("mem", "mem:bench-" + random, () -> { });
            }
            case "h2" -> {
                try {
                    Path dir = Files.createTempDirectory("latchkey-bench-h2-");
                    return new BenchTarget("h2 (embedded file)", "jdbc:h2:file:" + dir.resolve("bench").toAbsolutePath(),
                            () -> deleteTree(dir));
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot create a temporary directory for H2", e);
                }
            }
            case "redis" -> {
                Optional<Path> binary = Binaries.find("redis-server");
                if (binary.isEmpty()) {
                    throw new IllegalStateException("redis-server is not on PATH (Debian: apt-get install redis-server); "
                            + "or give a URI: redis://host:6379");
                }
                int port = FreePorts.find();
                ServerProcess server = ServerProcess.builder().name("redis-server for bench on 127.0.0.1:" + port)
                        .command(binary.get().toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                                "--save", "", "--appendonly", "no")
                        .readiness(ReadinessCheck.tcpPortOpen(port)).start();
                return new BenchTarget("redis (local server)", "redis://127.0.0.1:" + port, server);
            }
            default -> {
                return new BenchTarget(io.latchkey.spi.Redaction.redact(item), item, () -> { });
            }
        }
    }

    @Override
    public void close() {
        try {
            cleanup.close();
        } catch (Exception e) {
            org.slf4j.LoggerFactory.getLogger(BenchTarget.class).warn("cleaning up after {}: {}", label, e.toString());
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}

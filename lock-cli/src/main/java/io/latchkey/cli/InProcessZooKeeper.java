package io.latchkey.cli;

import io.latchkey.servers.FreePorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * A throw-away standalone ZooKeeper server inside this JVM for {@code bench}, with ZooKeeper's own
 * {@link ZooKeeperServerEmbedded} (the server classes come with the ZooKeeper jar lock-zookeeper already
 * bundles, so nothing needs installing): a free loopback port, a temporary data directory, transaction-log
 * fsync off ({@code forceSync=no}) like the relaxed durability of the other local servers, no admin HTTP
 * server, no per-address connection limit (every bench client has its own session). Its errors are logged,
 * never {@code System.exit} ({@link ExitHandler#LOG_ONLY}). It shares the JVM's cores with the clients.
 *
 * <p>Concurrency: start and close run on a daemon thread and are waited for with a time limit, because
 * ZooKeeper 3.9's {@code close()} (also called by a failed {@code start}) can wait forever for a thread that
 * never started; bench then reports the backend as not started, or leaves the stuck thread to the JVM's exit,
 * instead of hanging. Called on the main thread (and by the clean-up's shutdown hook).
 */
final class InProcessZooKeeper {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(15);

    private InProcessZooKeeper() {}

    /** Starts the server and returns its {@code zookeeper://} URI. */
    static String start(BenchCleanup cleanup) throws Exception {
        Path dir = LocalServers.temporaryDirectory(null, "latchkey-bench-zk-", cleanup);
        int port = FreePorts.find();
        Properties config = new Properties();
        config.setProperty("clientPort", Integer.toString(port));
        config.setProperty("clientPortAddress", "127.0.0.1");
        config.setProperty("dataDir", dir.resolve("data").toString());
        config.setProperty("tickTime", "2000");
        config.setProperty("maxClientCnxns", "0");
        // keys ZooKeeper's config parser does not know become system properties "zookeeper.<key>"
        config.setProperty("forceSync", "no");
        config.setProperty("admin.enableServer", "false");
        ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder()
                .baseDir(dir)
                .configuration(config)
                .exitHandler(ExitHandler.LOG_ONLY)
                .build();
        cleanup.add(() -> bounded("stopping", server::close, CLOSE_TIMEOUT));
        bounded("starting", () -> server.start(START_TIMEOUT.toMillis()), START_TIMEOUT.plus(CLOSE_TIMEOUT));
        return "zookeeper://127.0.0.1:" + port;
    }

    private interface Step {
        void run() throws Exception;
    }

    private static void bounded(String what, Step step, Duration limit) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try {
                        step.run();
                        done.complete(null);
                    } catch (Throwable e) {
                        done.completeExceptionally(e);
                    }
                },
                "latchkey-bench-zookeeper-" + what);
        t.setDaemon(true);
        t.start();
        try {
            done.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new LocalServers.NotStarted(
                    "the in-process ZooKeeper server got stuck " + what + " (waited " + DurationConverter.format(limit)
                            + ")",
                    e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof Exception x ? x : new IllegalStateException(cause);
        }
    }
}

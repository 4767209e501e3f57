package io.latchkey.servers;

import io.latchkey.spi.DaemonThreads;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * A standalone ZooKeeper server inside this JVM, with ZooKeeper's own {@link ZooKeeperServerEmbedded}: a
 * free loopback port chosen once (so a restarted server listens where it did), data in a directory the
 * caller owns (so a restart keeps nodes and unexpired sessions), no admin HTTP server, no per-address
 * connection limit, errors logged and never {@code System.exit} ({@link ExitHandler#LOG_ONLY}). The one
 * in-process ZooKeeper launcher of the project: the CLI's {@code bench} and lock-zookeeper's tests use it.
 * Needs {@code org.apache.zookeeper:zookeeper} on the class path (an optional dependency of this module).
 *
 * <p>Concurrency: start, stop and close are serialised by one lock. Each runs on a daemon thread and is waited
 * for with a time limit, because ZooKeeper 3.9's {@code close()} (also called by a failed start) can wait
 * forever for a thread that never started; the caller then gets a {@link ServerStartException} (or, for a stop,
 * the stuck thread is left to the JVM's exit) instead of hanging.
 */
public final class EmbeddedZooKeeperServer implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);

    private final Path baseDir;
    private final int port;
    private final Properties config;
    private final ReentrantLock lifecycle = new ReentrantLock();
    private ZooKeeperServerEmbedded server; // guarded by lifecycle; null while stopped

    private EmbeddedZooKeeperServer(Path baseDir, int port, Properties config) {
        this.baseDir = baseDir;
        this.port = port;
        this.config = config;
    }

    /**
     * Starts a server on a free loopback port.
     *
     *
     * @param baseDir  the server's directory (data under {@code data/}); the caller deletes it
     * @param tickTime ZooKeeper's tick (session timeouts are bounded by 2 and 20 ticks unless {@code extra} says)
     * @param extra    further zoo.cfg keys, e.g. {@code forceSync=no}, {@code minSessionTimeout}, {@code
     *                 maxSessionTimeout}
     * @return the running server
     * @throws Exception if the server cannot start
     */
    public static EmbeddedZooKeeperServer start(Path baseDir, Duration tickTime, Map<String, String> extra)
            throws Exception {
        int port = FreePorts.find();
        Properties config = new Properties();
        config.setProperty("clientPort", Integer.toString(port));
        config.setProperty("clientPortAddress", "127.0.0.1");
        config.setProperty("dataDir", baseDir.resolve("data").toString());
        config.setProperty("tickTime", Long.toString(tickTime.toMillis()));
        config.setProperty("maxClientCnxns", "0");
        // keys ZooKeeper's config parser does not know become system properties "zookeeper.<key>"
        config.setProperty("admin.enableServer", "false");
        extra.forEach(config::setProperty);
        EmbeddedZooKeeperServer zk = new EmbeddedZooKeeperServer(baseDir, port, config);
        zk.start();
        return zk;
    }

    /**
     * Starts the server again on its port with its data; does nothing if it runs.
     *
     * @throws Exception if the server cannot start
     */
    public void start() throws Exception {
        lifecycle.lock();
        try {
            if (server != null) {
                return;
            }
            ZooKeeperServerEmbedded s = ZooKeeperServerEmbedded.builder()
                    .baseDir(baseDir)
                    .configuration(config)
                    .exitHandler(ExitHandler.LOG_ONLY)
                    .build();
            try {
                bounded("starting", () -> s.start(START_TIMEOUT.toMillis()), START_TIMEOUT.plus(STOP_TIMEOUT));
            } catch (Exception e) {
                bounded("stopping after a failed start", s::close, STOP_TIMEOUT);
                throw e;
            }
            server = s;
        } finally {
            lifecycle.unlock();
        }
    }

    /**
     * Stops the server; connections drop, the data stays for {@link #start()}. Does nothing if stopped.
     *
     * @throws Exception if shutting it down fails
     */
    public void stop() throws Exception {
        lifecycle.lock();
        try {
            ZooKeeperServerEmbedded s = server;
            server = null;
            if (s != null) {
                bounded("stopping", s::close, STOP_TIMEOUT);
            }
        } finally {
            lifecycle.unlock();
        }
    }

    /**
     * Whether the server runs.
     *
     * @return whether it runs
     */
    public boolean isRunning() {
        lifecycle.lock();
        try {
            return server != null;
        } finally {
            lifecycle.unlock();
        }
    }

    /**
     * The client port on 127.0.0.1.
     *
     * @return the port
     */
    public int port() {
        return port;
    }

    /**
     * {@code 127.0.0.1:<port>}.
     *
     * @return the connect string
     */
    public String connectString() {
        return "127.0.0.1:" + port;
    }

    /** Stops the server. The base directory is the caller's to delete. */
    @Override
    public void close() throws Exception {
        stop();
    }

    @Override
    public String toString() {
        return "embedded ZooKeeper on " + connectString();
    }

    private interface Step {
        void run() throws Exception;
    }

    private static void bounded(String what, Step step, Duration limit) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        DaemonThreads.start("latchkey-embedded-zookeeper-" + what.replace(' ', '-'), () -> {
            try {
                step.run();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        });
        try {
            done.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new ServerStartException(
                    "the in-process ZooKeeper server got stuck " + what, null, List.of(), limit, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof Exception x ? x : new IllegalStateException(cause);
        }
    }
}

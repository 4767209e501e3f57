package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.zookeeper.fixtures.FourLetterWords;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Read-write locks and semaphores as the server sees them: their own subtrees, kind-carrying node names, requests
 * per acquisition (counted by the server from the session's last request id), and which waiters a release wakes.
 */
class SharedQueueProtocolTest {
    private static ZooKeeperServer server;
    private static ZooKeeperLockBackend backend;
    private static LockClient client;
    private static String host;
    private static int port;

    @BeforeAll
    static void start() {
        server = ZooKeeperServers.single();
        server.control(); // counting needs the embedded server's four-letter words
        host = server.connectString().split(":")[0];
        port = Integer.parseInt(server.connectString().split(":")[1]);
        backend = Clients.backend(server.uri(), "60s", "5s"); // pings every 20 s: none in a measurement
        client = Latchkey.client(backend);
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static long requests(ZooKeeperLockBackend b) throws Exception {
        return FourLetterWords.lastCxid(host, port, Clients.sessionId(b));
    }

    @Test
    @DisplayName("§8 round trips: an uncontended read lock and a semaphore grant take 2 requests, their release 1")
    void sharedGrantsTakeAsFewRequestsAsALock() throws Exception {
        String name = "rt/shared/" + UUID.randomUUID();
        client.readWriteLock(name).readLock().tryAcquire().orElseThrow().release(); // creates the parents
        client.semaphore(name, 4).tryAcquire(1).orElseThrow().release();
        long before = requests(backend);
        LockHandle read = client.readWriteLock(name).readLock().acquire(Duration.ofSeconds(5));
        long readAcquired = requests(backend);
        read.release();
        long readReleased = requests(backend);
        LockHandle permits = client.semaphore(name, 4).acquire(2, Duration.ofSeconds(5));
        long permitsAcquired = requests(backend);
        permits.release();
        assertThat(readAcquired - before).as("requests to take a read lock").isEqualTo(2);
        assertThat(readReleased - readAcquired).as("requests to release it").isEqualTo(1);
        assertThat(permitsAcquired - readReleased)
                .as("requests to take 2 permits")
                .isEqualTo(2);
        assertThat(requests(backend) - permitsAcquired)
                .as("requests to release them")
                .isEqualTo(1);
    }

    @Test
    @DisplayName("each primitive queues in its own subtree, with its kind in the node name")
    void primitivesHaveTheirOwnSubtrees() throws Exception {
        String name = "layout/" + UUID.randomUUID();
        LockHandle lock = client.lock(name).tryAcquire().orElseThrow();
        LockHandle read = client.readWriteLock(name).readLock().tryAcquire().orElseThrow();
        LockHandle permits = client.semaphore(name, 5).tryAcquire(3).orElseThrow();
        String base = backend.pathOf(name).substring(0, backend.pathOf(name).indexOf("/", 1));
        List<String> lockNodes = backend.curator().getChildren().forPath(backend.pathOf(name));
        assertThat(lockNodes).singleElement().satisfies(n -> assertThat(n).startsWith("lk-"));
        String suffix = backend.pathOf(name).substring(base.length());
        assertThat(backend.curator().getChildren().forPath(base + "/rw" + suffix))
                .singleElement()
                .satisfies(n -> assertThat(n).startsWith("rd-"));
        assertThat(backend.curator().getChildren().forPath(base + "/sem" + suffix))
                .singleElement()
                .satisfies(n -> assertThat(n).startsWith("pm3x5-"));
        assertThat(client.list("layout/")).extracting(i -> i.name()).containsExactly(name);
        permits.release();
        read.release();
        lock.release();
    }

    @Test
    @DisplayName("a release wakes only the waiter it can admit: a reader behind a waiting writer sleeps on")
    void aReleaseWakesOnlyTheWaiterItAdmits() throws Exception {
        String name = "wake/" + UUID.randomUUID();
        ZooKeeperLockBackend writerBackend = Clients.backend(server.uri(), "60s", "5s");
        ZooKeeperLockBackend readerBackend = Clients.backend(server.uri(), "60s", "5s");
        try (LockClient writerClient = Latchkey.client(writerBackend);
                LockClient readerClient = Latchkey.client(readerBackend)) {
            LockHandle first =
                    client.readWriteLock(name).writeLock().tryAcquire().orElseThrow();
            CompletableFuture<LockHandle> writer =
                    writerClient.readWriteLock(name).writeLock().acquireAsync(Duration.ofSeconds(30));
            Awaitility.await().until(() -> queueLength(name) == 2);
            CompletableFuture<LockHandle> reader =
                    readerClient.readWriteLock(name).readLock().acquireAsync(Duration.ofSeconds(30));
            Awaitility.await().until(() -> queueLength(name) == 3);
            long readerRequests = requests(readerBackend);
            first.release();
            LockHandle w = writer.get(10, java.util.concurrent.TimeUnit.SECONDS);
            Awaitility.await()
                    .during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> requests(readerBackend) == readerRequests && !reader.isDone());
            w.release();
            reader.get(10, java.util.concurrent.TimeUnit.SECONDS).release();
        }
    }

    private static int queueLength(String name) throws Exception {
        String lockPath = backend.pathOf(name);
        String base = lockPath.substring(0, lockPath.indexOf("/", 1));
        return backend.curator()
                .getChildren()
                .forPath(base + "/rw" + lockPath.substring(base.length()))
                .size();
    }
}

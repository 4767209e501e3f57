package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedReadWriteLock;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.zookeeper.fixtures.FourLetterWords;
import io.latchkey.zookeeper.fixtures.ZkProxy;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The protocol as the server sees it: requests per acquisition (counted by the server, from the last request
 * id of the client's session), container parents, and what a tryAcquire on a held lock leaves behind.
 */
class ProtocolTest {
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

    private static long requests() throws Exception {
        return FourLetterWords.lastCxid(host, port, Clients.sessionId(backend));
    }

    @Test
    @DisplayName("§8 round trips: uncontended fair acquire + release is 3 requests (create, getChildren, delete)")
    void fairAcquireAndReleaseTakeThreeRequests() throws Exception {
        String name = "rt/acquire/" + UUID.randomUUID();
        client.lock(name).acquire(Duration.ofSeconds(5)).release(); // first use creates the container parent
        long before = requests();
        LockHandle h = client.lock(name).acquire(Duration.ofSeconds(5));
        long acquired = requests();
        h.release();
        long released = requests();
        assertThat(acquired - before).as("requests to acquire").isEqualTo(2);
        assertThat(released - acquired).as("requests to release").isEqualTo(1);
    }

    @Test
    @DisplayName("§8 round trips: an acquisition's create and getChildren are in flight together (one round trip)")
    void createAndListArePipelined() throws Exception {
        try (ZkProxy proxy = new ZkProxy(host, port);
                LockClient viaProxy =
                        Latchkey.client(Clients.backend("zookeeper://" + proxy.connectString(), "60s", "5s"))) {
            String name = "rt/pipelined/" + UUID.randomUUID();
            DistributedReadWriteLock rw = viaProxy.readWriteLock(name);
            viaProxy.lock(name).acquire(Duration.ofSeconds(5)).release(); // parents exist: no retried create
            rw.readLock().acquire(Duration.ofSeconds(5)).release();
            proxy.resetMostInFlight();
            viaProxy.lock(name).acquire(Duration.ofSeconds(5)).release();
            assertThat(proxy.mostInFlight())
                    .as("requests in flight at once, exclusive acquire")
                    .isEqualTo(2);
            proxy.resetMostInFlight();
            rw.readLock().tryAcquire().orElseThrow().release();
            assertThat(proxy.mostInFlight())
                    .as("requests in flight at once, read tryAcquire")
                    .isEqualTo(2);
        }
    }

    @Test
    @DisplayName("§8 round trips: a successful tryAcquire is 2 requests, its release 1")
    void tryAcquireTakesTwoRequests() throws Exception {
        String name = "rt/try/" + UUID.randomUUID();
        client.lock(name).tryAcquire().orElseThrow().release();
        long before = requests();
        LockHandle h = client.lock(name).tryAcquire().orElseThrow();
        long acquired = requests();
        h.release();
        assertThat(acquired - before).as("requests of a successful tryAcquire").isEqualTo(2);
        assertThat(requests() - acquired).as("requests to release").isEqualTo(1);
    }

    @Test
    @DisplayName("a busy tryAcquire leaves no node of its own behind")
    void busyTryAcquireCleansUp() throws Exception {
        String name = "rt/container/" + UUID.randomUUID();
        try (LockClient other = Latchkey.connect(server.uri())) {
            LockHandle h = client.lock(name).tryAcquire().orElseThrow();
            assertThat(other.lock(name).tryAcquire()).isEmpty();
            List<String> nodes = backend.curator().getChildren().forPath(backend.pathOf(name));
            assertThat(nodes).hasSize(1);
            assertThat(LockPaths.ownerOf(nodes.get(0))).isEqualTo(h.owner());
            h.release();
            assertThat(backend.curator().getChildren().forPath(backend.pathOf(name)))
                    .isEmpty();
        }
    }

    @Test
    @DisplayName("§4.8 a name of 255 bytes of 4-byte UTF-8 and the hostile names map to legal, distinct paths")
    void hostileNamesAreLegalDistinctPaths() throws Exception {
        String longest = "\uD83D\uDE00".repeat(63) + "abc";
        assertThat(longest.getBytes(java.nio.charset.StandardCharsets.UTF_8)).hasSize(255);
        LockHandle h = client.lock(longest).tryAcquire().orElseThrow();
        assertThat(client.inspect(longest)).map(i -> i.name()).contains(longest);
        assertThat(backend.curator().checkExists().forPath(backend.pathOf(longest)))
                .isNotNull();
        h.release();
    }

    @Test
    @DisplayName("a backend on the application's CuratorFramework works and never closes it")
    void applicationsCuratorIsUsedAndLeftOpen() throws Exception {
        try (org.apache.curator.framework.CuratorFramework curator =
                org.apache.curator.framework.CuratorFrameworkFactory.newClient(
                        server.connectString(), new org.apache.curator.retry.RetryOneTime(100))) {
            curator.start();
            assertThat(curator.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS))
                    .isTrue();
            ZooKeeperLockBackend own =
                    ZooKeeperLockBackend.builder(curator).basePath("/apps/one").build();
            String name = "external/" + UUID.randomUUID();
            try (LockClient locks = Latchkey.client(own)) {
                LockHandle h = locks.lock(name).acquire(Duration.ofSeconds(5));
                assertThat(curator.checkExists().forPath(own.pathOf(name))).isNotNull();
                assertThat(own.pathOf(name)).startsWith("/apps/one/");
                assertThat(client.lock(name).tryAcquire())
                        .as("another base path is another lock")
                        .isPresent()
                        .get()
                        .satisfies(LockHandle::release);
                h.release();
            }
            assertThat(curator.getState()).isEqualTo(org.apache.curator.framework.imps.CuratorFrameworkState.STARTED);
            assertThat(curator.getZookeeperClient().isConnected()).isTrue();
        }
    }
}

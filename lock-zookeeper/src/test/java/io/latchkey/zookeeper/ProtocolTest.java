package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedReadWriteLock;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.zookeeper.fixtures.FourLetterWords;
import io.latchkey.zookeeper.fixtures.ZkProxy;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
            // 50 ms on every reply: a client that sends the getChildren only after the create's reply still shows one
            // in flight; one that pipelines shows two even if the proxy's pump is descheduled between the two requests
            proxy.delayReplies(50);
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

    /**
     * A held lock's node lives as long as the session; a renewal only proves that the session answers and that the
     * node is still there. Background renewals of many locks go as one multi() of existence checks per batch: 40
     * locks renewed every 300 ms cost about one request per renewal interval and gather, not 40. A lock force-released
     * among them fails its check and is lost alone; the checks after it in the same multi are sent again.
     */
    @Test
    @DisplayName("§8 held locks renew in batches: one multi() of checks per batch; a force-released one is lost alone")
    void heldLocksRenewInBatches() throws Exception {
        LockOptions fast = LockOptions.builder()
                .lease(Duration.ofSeconds(2))
                .renewInterval(Duration.ofMillis(300))
                .build();
        String prefix = "rt/renew/" + UUID.randomUUID() + "/";
        // taken at once, so that their renewals fall due together (one by one they spread over several gathers)
        List<java.util.concurrent.CompletableFuture<LockHandle>> taking = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            taking.add(client.lock(prefix + i, fast).acquireAsync(Duration.ofSeconds(5)));
        }
        List<LockHandle> handles = new ArrayList<>();
        for (java.util.concurrent.CompletableFuture<LockHandle> f : taking) {
            handles.add(f.join());
        }
        try {
            long before = requests();
            long start = System.nanoTime();
            await().during(Duration.ofMillis(1500))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> handles.stream().allMatch(LockHandle::isValid));
            long renewals = requests() - before;
            long intervals = (System.nanoTime() - start) / Duration.ofMillis(300).toNanos();
            assertThat(renewals)
                    .as("renewal requests for 40 locks over %d renewal intervals (lock by lock: about %d)",
                            intervals, 40 * intervals)
                    .isGreaterThanOrEqualTo(intervals - 1)
                    .isLessThan(10 * intervals);

            LockHandle forced = handles.get(17);
            try (LockClient other = Latchkey.connect(server.uri())) {
                assertThat(other.forceRelease(prefix + 17)).isTrue();
            }
            LockLoss loss = forced.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(loss.reason()).isEqualTo(LockLoss.Reason.RELEASED_BY_ADMIN);
            await().during(Duration.ofMillis(900))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> handles.stream().filter(h -> h != forced).allMatch(LockHandle::isValid));
        } finally {
            handles.forEach(LockHandle::release);
        }
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

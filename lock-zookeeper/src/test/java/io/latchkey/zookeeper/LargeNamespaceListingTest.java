package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import io.latchkey.LockOptions;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 item 10: a namespace with many long names must never make a getChildren reply exceed ZooKeeper's
 * 1 MB packet limit, which drops the client's connection and loses the locks it holds. 20,000 names of up to
 * 255 UTF-8 bytes (most of them 4-byte characters, the longest encoded form: 765 characters each, about 15 MB
 * if they were children of one node) are each held by a seeding session; they are written in batches of
 * multi-transactions at the paths the backend computes, which is what 20,000 acquisitions would leave.
 */
class LargeNamespaceListingTest {
    private static final int NAMES = 20_000;
    private static final String OWNER = "seed-owner";
    private static ZooKeeperServer server;
    private static CuratorFramework seeder;
    private static String basePath;
    private static List<String> names;

    @BeforeAll
    static void seed() throws Exception {
        server = ZooKeeperServers.single();
        basePath = "/big-" + UUID.randomUUID();
        seeder = CuratorFrameworkFactory.builder()
                .connectString(server.connectString())
                .sessionTimeoutMs(60_000)
                .connectionTimeoutMs(10_000)
                .retryPolicy(new RetryOneTime(200))
                .build();
        seeder.start();
        seeder.blockUntilConnected();
        names = new ArrayList<>(NAMES);
        for (int i = 0; i < NAMES; i++) {
            names.add(longName(i));
        }
        LockPaths paths = new LockPaths(basePath);
        ZooKeeper zk = seeder.getZookeeperClient().getZooKeeper();
        // containers above the names first (the base, and the buckets if there are any), then the names
        Set<String> ancestors = new LinkedHashSet<>();
        for (String n : names) {
            String parent = paths.parent(n);
            for (int slash = parent.indexOf('/', 1); slash > 0; slash = parent.indexOf('/', slash + 1)) {
                ancestors.add(parent.substring(0, slash));
            }
        }
        List<Op> ops = new ArrayList<>();
        for (String a : ancestors) {
            ops.add(Op.create(a, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER));
            flushIfFull(zk, ops, 500);
        }
        flushIfFull(zk, ops, 0);
        String marker = LockPaths.marker(OWNER);
        for (String n : names) {
            String parent = paths.parent(n);
            ops.add(Op.create(parent, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER));
            ops.add(Op.create(
                    parent + "/" + marker,
                    OWNER.getBytes(StandardCharsets.UTF_8),
                    ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.EPHEMERAL_SEQUENTIAL));
            flushIfFull(zk, ops, 300); // 150 names: about 250 KB per transaction
        }
        flushIfFull(zk, ops, 0);
    }

    private static void flushIfFull(ZooKeeper zk, List<Op> ops, int max) throws Exception {
        if (!ops.isEmpty() && ops.size() >= max) {
            zk.multi(ops);
            ops.clear();
        }
    }

    /** 255 UTF-8 bytes or close to it: an ASCII index, then 4-, 3- or 2-byte characters (most of them 4-byte). */
    static String longName(int i) {
        StringBuilder sb = new StringBuilder("big/").append(i).append('/');
        String filler = i % 10 == 0 ? "\u00e9" : i % 10 == 1 ? "\u6f22" : "\uD83D\uDE00"; // é, 漢, 😀
        int fill = filler.getBytes(StandardCharsets.UTF_8).length;
        while (sb.toString().getBytes(StandardCharsets.UTF_8).length + fill <= 255) {
            sb.append(filler);
        }
        return sb.toString();
    }

    @AfterAll
    static void stop() {
        if (seeder != null) {
            seeder.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    @DisplayName("list over 20,000 long UTF-8 names works and costs no held lock (no reply beyond 1 MB)")
    void listingManyLongNamesKeepsTheSession() throws Exception {
        ZooKeeperLockBackend backend = Clients.backend(server.uri() + "?basePath=" + basePath, "10s", "5s");
        try (LockClient victim = Latchkey.client(backend);
                LockClient other =
                        Latchkey.client(Clients.backend(server.uri() + "?basePath=" + basePath, "10s", "5s"))) {
            long session = Clients.sessionId(backend);
            // renewed every second while the listings run, on the same connection
            LockHandle held = victim.lock(
                            "held/victim",
                            LockOptions.builder().lease(Duration.ofSeconds(3)).build())
                    .acquire(Duration.ofSeconds(10));

            long t0 = System.nanoTime();
            List<LockInfo> none = victim.list("victim");
            long noneMillis = (System.nanoTime() - t0) / 1_000_000;
            assertThat(none).isEmpty();

            t0 = System.nanoTime();
            List<LockInfo> all = victim.list("");
            long allMillis = (System.nanoTime() - t0) / 1_000_000;
            assertThat(all).hasSize(NAMES + 1);
            assertThat(all.stream()
                            .filter(i -> i.owner().equals(OWNER))
                            .map(LockInfo::name)
                            .toList())
                    .containsExactlyInAnyOrderElementsOf(names);

            String one = longName(12_345);
            assertThat(victim.list("big/12345/")).singleElement().satisfies(i -> {
                assertThat(i.name()).isEqualTo(one);
                assertThat(i.owner()).isEqualTo(OWNER);
            });
            assertThat(victim.list("held/"))
                    .singleElement()
                    .satisfies(i -> assertThat(i.fencingToken()).isEqualTo(held.fencingToken()));
            System.out.printf("list over %d names: no match %d ms, all %d ms%n", NAMES, noneMillis, allMillis);

            // the held lock survived: same session, still valid, no loss reported, nobody else can take it
            assertThat(Clients.sessionId(backend)).isEqualTo(session);
            assertThat(held.isValid()).isTrue();
            assertThat(held.lost().toCompletableFuture().isDone()).isFalse();
            assertThat(other.lock("held/victim").tryAcquire()).isEmpty();
            assertThat(held.renew()).isTrue();
            assertThat(held.lost().toCompletableFuture().isDone()).isFalse();
            assertThat(held.release()).isTrue();
        }
    }
}

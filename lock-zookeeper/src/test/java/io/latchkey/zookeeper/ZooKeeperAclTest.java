package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Fairness;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.Grant;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * ACLs on the nodes a backend creates, on a real (embedded) ZooKeeper server: with a digest identity the default is
 * {@code creator}, so another identity and an unauthenticated client can read the lock nodes but neither delete,
 * overwrite, re-ACL nor queue into them; with {@code acl=open} anyone can (the control that shows the checks can
 * fail).
 */
class ZooKeeperAclTest {
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static ZooKeeperServer server;

    @BeforeAll
    static void start() {
        server = ZooKeeperServers.single();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    @DisplayName("creator ACL: another identity and an anonymous client cannot delete, overwrite or join a lock's nodes")
    void creatorAclKeepsOthersOut() throws Exception {
        String base = "/acl-" + System.nanoTime();
        try (ZooKeeperLockBackend alice = backend("alice:alice-pw@", base, Map.of());
                ZooKeeperLockBackend bob = backend("bob:bob-pw@", base, Map.of());
                CuratorFramework bobRaw = raw("bob:bob-pw");
                CuratorFramework anonymous = raw(null)) {
            assertThat(alice.tryAcquire(request("x", "alice-1"))).isInstanceOf(Grant.class);
            String contender = contender(anonymous, base, "x");
            String lockNode = contender.substring(0, contender.lastIndexOf('/'));

            for (CuratorFramework other : List.of(bobRaw, anonymous)) {
                assertThatThrownBy(() -> other.delete().forPath(contender))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> other.setData().forPath(contender, "mine".getBytes(StandardCharsets.UTF_8)))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> other.setACL()
                                .withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE)
                                .forPath(contender))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> other.create().forPath(lockNode + "/lk-intruder-0000000001"))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThat(other.getData().forPath(contender)).isNotNull(); // readable by all: monitoring works
            }
            assertThat(alice.inspect("x")).hasValueSatisfying(i -> assertThat(i.owner()).isEqualTo("alice-1"));

            // Bob locks his own names under the same base path, but not Alice's, and the error names the privilege
            assertThat(bob.tryAcquire(request("y", "bob-1"))).isInstanceOf(Grant.class);
            assertThatThrownBy(() -> bob.tryAcquire(request("x", "bob-1")))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("NOAUTH")
                    .hasMessageContaining("CREATE on a lock's node");
            // and Alice cannot touch Bob's
            String bobs = contender(anonymous, base, "y");
            try (CuratorFramework aliceRaw = raw("alice:alice-pw")) {
                assertThatThrownBy(() -> aliceRaw.delete().forPath(bobs))
                        .isInstanceOf(KeeperException.NoAuthException.class);
            }
        }
    }

    @Test
    @DisplayName("open ACL (the control): an anonymous client can delete an authenticated client's lock node")
    void openAclLetsAnyoneIn() throws Exception {
        String base = "/acl-open-" + System.nanoTime();
        try (ZooKeeperLockBackend alice = backend("alice:alice-pw@", base, Map.of("acl", "open"));
                CuratorFramework anonymous = raw(null)) {
            assertThat(alice.tryAcquire(request("x", "alice-1"))).isInstanceOf(Grant.class);
            anonymous.delete().forPath(contender(anonymous, base, "x"));
            assertThat(alice.inspect("x")).isEmpty();
        }
    }

    @Test
    @DisplayName("an explicit ACL list is used for every node; a bad one is refused with the forms allowed")
    void explicitListsAndBadSettings() throws Exception {
        String base = "/acl-list-" + System.nanoTime();
        try (ZooKeeperLockBackend alice = backend("alice:alice-pw@", base, Map.of("acl", "auth::cdrwa,world:anyone:r"));
                CuratorFramework anonymous = raw(null)) {
            assertThat(alice.tryAcquire(request("x", "alice-1"))).isInstanceOf(Grant.class);
            String contender = contender(anonymous, base, "x");
            assertThatThrownBy(() -> anonymous.delete().forPath(contender))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThat(anonymous.getACL().forPath(base)).hasSize(2);
        }
        assertThatThrownBy(() -> backend("", "/x", Map.of("acl", "world:anyone:rx")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("perms are letters from cdrwa");
        assertThatThrownBy(() -> backend("", "/x", Map.of("acl", "everyone")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("acl must be auto, creator, open, or a list");
        assertThatThrownBy(() -> backend("", "/x", Map.of("acl", "creator")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("acl=creator needs an authenticated client");
    }

    private static ZooKeeperLockBackend backend(String userInfo, String base, Map<String, String> extra) {
        Map<String, String> settings = new java.util.HashMap<>(extra);
        settings.put("basePath", base);
        settings.put("connectTimeout", "3s");
        return (ZooKeeperLockBackend) new ZooKeeperBackendProvider()
                .create(URI.create("zookeeper://" + userInfo + server.connectString()), settings);
    }

    private static CuratorFramework raw(String digest) throws InterruptedException {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .connectString(server.connectString())
                .retryPolicy(new RetryOneTime(100));
        if (digest != null) {
            b.authorization("digest", digest.getBytes(StandardCharsets.UTF_8));
        }
        CuratorFramework c = b.build();
        c.start();
        c.blockUntilConnected();
        return c;
    }

    private static AcquireRequest request(String name, String owner) {
        return new AcquireRequest(name, owner, LEASE, Fairness.NONE);
    }

    /** The one contender node of lock {@code name} under {@code base} (base/bucket/name/lk-...). */
    private static String contender(CuratorFramework c, String base, String name) throws Exception {
        List<String> found = new ArrayList<>();
        for (String bucket : c.getChildren().forPath(base)) {
            if (bucket.length() != 3) {
                continue;
            }
            String lockNode = base + "/" + bucket + "/" + name;
            if (c.checkExists().forPath(lockNode) != null) {
                for (String child : c.getChildren().forPath(lockNode)) {
                    found.add(lockNode + "/" + child);
                }
            }
        }
        assertThat(found).as("contenders of %s under %s", name, base).hasSize(1);
        return found.get(0);
    }
}

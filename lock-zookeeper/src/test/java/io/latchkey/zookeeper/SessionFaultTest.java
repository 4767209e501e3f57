package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.zookeeper.fixtures.HolderProcess;
import io.latchkey.zookeeper.fixtures.SessionKiller;
import io.latchkey.zookeeper.fixtures.ZkProxy;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Session faults on one real (embedded) ZooKeeper server: an expired session, a connection that is suspended
 * past the grant's validity or comes back in time, a release while disconnected, a holder process that is
 * killed, and a create whose reply is lost.
 */
class SessionFaultTest {
    private static ZooKeeperServer server;
    private final List<AutoCloseable> opened = new java.util.ArrayList<>();

    @BeforeAll
    static void startServer() {
        server = ZooKeeperServers.single();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void closeClients() throws Exception {
        if (!server.control().isAlive()) {
            server.control().restart(); // a test that stopped the server must not leave it stopped
        }
        for (AutoCloseable c : opened) {
            c.close();
        }
    }

    private static String name(String what) {
        return "fault/" + what + "/" + UUID.randomUUID();
    }

    private <T extends AutoCloseable> T open(T c) {
        opened.add(c);
        return c;
    }

    private LockClient client(ZooKeeperLockBackend backend) {
        return open(Latchkey.client(backend));
    }

    @Test
    @DisplayName(
            "an expired session reports SESSION_LOST, frees the lock for others, and the same client acquires again")
    void sessionExpiryIsReportedAndTheClientRecovers() throws Exception {
        ZooKeeperLockBackend backendA = Clients.backend(server.uri(), "10s", "3s");
        LockClient a = client(backendA);
        LockClient b = open(Latchkey.connect(server.uri()));
        String name = name("expiry");
        LockHandle h = a.lock(name).tryAcquire().orElseThrow();
        long sessionBefore = Clients.sessionId(backendA);

        SessionKiller.kill(backendA, server.connectString());

        LockLoss loss = h.lost().toCompletableFuture().get(20, TimeUnit.SECONDS);
        assertThat(loss.reason()).isEqualTo(LockLoss.Reason.SESSION_LOST);
        assertThat(h.isValid()).isFalse();
        LockHandle other = b.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        assertThat(other.fencingToken()).isGreaterThan(h.fencingToken());
        other.release();

        // the same client, not rebuilt, works on its new session
        LockHandle again = a.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
        assertThat(Clients.sessionId(backendA)).isNotEqualTo(sessionBefore);
        assertThat(again.fencingToken()).isGreaterThan(other.fencingToken());
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        again.release();
    }

    @Test
    @DisplayName(
            "a connection suspended past validUntil ends the handle before validUntil; its node is removed on reconnect")
    void suspendedPastValidityLosesTheHandleAndCleansUp() throws Exception {
        ZooKeeperLockBackend backendA = Clients.backend(server.uri(), "20s", "1s");
        LockClient a = client(backendA);
        String name = name("suspended");
        LockHandle h = a.lock(
                        name, LockOptions.builder().lease(Duration.ofSeconds(3)).build())
                .tryAcquire()
                .orElseThrow();
        long session = Clients.sessionId(backendA);
        CompletableFuture<Instant[]> seen = new CompletableFuture<>();
        h.onLost(l -> seen.complete(new Instant[] {Instant.now(), h.validUntil()}));

        server.control().stop();
        LockLoss loss = h.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(loss.reason()).isIn(LockLoss.Reason.RENEWAL_FAILED, LockLoss.Reason.SESSION_LOST);
        Instant[] at = seen.get(5, TimeUnit.SECONDS);
        assertThat(at[0]).isBefore(at[1]);
        server.control().restart();

        // the session survived (20 s), so only the client's own clean-up can free the lock this soon
        LockClient b = open(Latchkey.connect(server.uri()));
        long restarted = System.nanoTime();
        LockHandle other = b.lock(name).tryAcquire(Duration.ofSeconds(15)).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - restarted)).isLessThan(Duration.ofSeconds(10));
        assertThat(Clients.sessionId(backendA)).isEqualTo(session);
        assertThat(other.fencingToken()).isGreaterThan(h.fencingToken());
        other.release();
    }

    @Test
    @DisplayName("a connection that comes back before validUntil keeps the handle valid")
    void connectionBackInTimeKeepsTheHandle() throws Exception {
        ZooKeeperLockBackend backendA = Clients.backend(server.uri(), "20s", "1s");
        LockClient a = client(backendA);
        LockClient b = open(Latchkey.connect(server.uri()));
        String name = name("back-in-time");
        Duration lease = Duration.ofSeconds(8);
        LockHandle h = a.lock(name, LockOptions.builder().lease(lease).build())
                .tryAcquire()
                .orElseThrow();

        server.control().stop();
        server.control().restart();

        Awaitility.await()
                .atMost(lease.multipliedBy(3))
                .during(lease.multipliedBy(2))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> h.isValid() && !h.lost().toCompletableFuture().isDone());
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        assertThat(h.release()).isTrue();
    }

    @Test
    @DisplayName("a release while disconnected throws, keeps the client consistent, and the node goes once reconnected")
    void releaseWhileDisconnected() throws Exception {
        ZooKeeperLockBackend backendA = Clients.backend(server.uri(), "20s", "1s");
        LockClient a = client(backendA);
        String name = name("release-offline");
        LockHandle h = a.lock(name).tryAcquire().orElseThrow();
        long session = Clients.sessionId(backendA);

        server.control().stop();
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> !backendA.curator().getZookeeperClient().isConnected());
        assertThatThrownBy(h::release)
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining(name);
        assertThat(a.held()).isEmpty();
        assertThat(h.isValid()).isFalse();
        assertThat(h.release()).isFalse();
        server.control().restart();

        LockClient b = open(Latchkey.connect(server.uri()));
        LockHandle other = b.lock(name).tryAcquire(Duration.ofSeconds(15)).orElseThrow();
        assertThat(Clients.sessionId(backendA)).isEqualTo(session); // freed by the clean-up, not by expiry
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(backendA::noOrphansPending);
        other.release();
        a.lock(name).tryAcquire().orElseThrow().release();
    }

    @Test
    @DisplayName("a holder process killed without releasing frees the lock within the session timeout, not before")
    void killedHolderProcessFreesTheLockWithinTheSessionTimeout() throws Exception {
        String name = name("killed-holder");
        Duration sessionTimeout = Duration.ofSeconds(4);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process holder = new ProcessBuilder(
                        java.toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        HolderProcess.class.getName(),
                        server.uri(),
                        name,
                        sessionTimeout.toMillis() + "ms")
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            String held = line.get(60, TimeUnit.SECONDS);
            assertThat(held).startsWith("HELD ");
            long token = Long.parseLong(held.substring(5).trim());

            LockClient b = open(Latchkey.connect(server.uri()));
            holder.destroyForcibly(); // SIGKILL: no release, no session close
            long killedAt = System.nanoTime();
            assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(b.inspect(name)).map(i -> i.fencingToken()).contains(token);
            assertThat(b.lock(name).tryAcquire())
                    .as("the dead holder's session still binds the lock")
                    .isEmpty();

            Optional<LockHandle> next = b.lock(name).tryAcquire(sessionTimeout.plusSeconds(10));
            long took = System.nanoTime() - killedAt;
            assertThat(next).isPresent();
            assertThat(next.get().fencingToken()).isGreaterThan(token);
            // the server expires a session between timeout and timeout + one tick (500 ms); 1.5 s more for slack
            assertThat(Duration.ofNanos(took)).isLessThan(sessionTimeout.plusSeconds(2));
            next.get().release();
        } finally {
            holder.destroyForcibly();
        }
    }

    @Test
    @DisplayName("a create whose reply is lost is recognised on retry: one node, no orphan blocks the next owner")
    void lostCreateReplyLeavesNoOrphan() throws Exception {
        try (ZkProxy proxy =
                new ZkProxy("127.0.0.1", Integer.parseInt(server.connectString().split(":")[1]))) {
            ZooKeeperLockBackend backendA = Clients.backend("zookeeper://" + proxy.connectString(), "20s", "3s");
            LockClient a = client(backendA);
            LockClient b = open(Latchkey.connect(server.uri()));
            String name = name("lost-reply");
            b.lock(name).tryAcquire().orElseThrow().release(); // the parent exists: the lost reply is the node's create

            proxy.loseNextCreateReply();
            LockHandle h = a.lock(name).tryAcquire(Duration.ofSeconds(20)).orElseThrow();
            assertThat(proxy.lostReplies()).isEqualTo(1);
            assertThat(proxy.lostReplyError())
                    .as("the create whose reply was lost succeeded on the server")
                    .isZero();
            List<String> nodes = backendA.curator().getChildren().forPath(backendA.pathOf(name));
            assertThat(nodes).as("one contender node, the adopted one").hasSize(1);
            assertThat(b.inspect(name)).map(i -> i.fencingToken()).contains(h.fencingToken());
            assertThat(h.release()).isTrue();
            b.lock(name).tryAcquire().orElseThrow().release();
        }
    }

    @Test
    @DisplayName(
            "a create whose reply is lost while the client cannot reconnect fails, and its node is removed once it can")
    void lostCreateReplyWithoutReconnectionIsCleanedUp() throws Exception {
        try (ZkProxy proxy =
                new ZkProxy("127.0.0.1", Integer.parseInt(server.connectString().split(":")[1]))) {
            ZooKeeperLockBackend backendA = Clients.backend("zookeeper://" + proxy.connectString(), "20s", "1s");
            LockClient a = client(backendA);
            LockClient b = open(Latchkey.connect(server.uri()));
            String name = name("lost-reply-offline");
            long session = Clients.sessionId(backendA);
            b.lock(name).tryAcquire().orElseThrow().release(); // the parent exists: the lost reply is the node's create

            proxy.loseNextCreateReply();
            proxy.refuseConnectionsFor(60_000);
            assertThatThrownBy(() -> a.lock(name).tryAcquire()).isInstanceOf(BackendUnavailableException.class);
            assertThat(proxy.awaitReplyLost(5000)).isTrue();
            assertThat(proxy.lostReplyError())
                    .as("the create whose reply was lost succeeded on the server")
                    .isZero();
            assertThat(b.inspect(name)).as("the node the client never heard of").isPresent();
            assertThat(b.lock(name).tryAcquire()).isEmpty();
            assertThat(backendA.noOrphansPending()).isFalse();

            long healed = System.nanoTime();
            proxy.acceptConnections();
            LockHandle other = b.lock(name).tryAcquire(Duration.ofSeconds(15)).orElseThrow();
            assertThat(Duration.ofNanos(System.nanoTime() - healed)).isLessThan(Duration.ofSeconds(8));
            assertThat(Clients.sessionId(backendA)).isEqualTo(session); // removed by the client, not by session expiry
            other.release();
        }
    }
}

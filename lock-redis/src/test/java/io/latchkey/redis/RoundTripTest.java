package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.redis.fixtures.RespProxy;
import io.latchkey.servers.RunningServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Commands per uncontended acquire + release (issue item 7), counted twice: by a proxy on the wire (every
 * command the client sent) and by the server's own INFO commandstats (every EVALSHA that arrived).
 */
class RoundTripTest {
    private static final int CYCLES = 20;
    private static List<RunningServer> servers;

    @BeforeAll
    static void startServers() {
        servers = RedisServers.several(3);
    }

    @AfterAll
    static void stopServers() {
        if (servers != null) {
            servers.forEach(RunningServer::close);
        }
    }

    private static Jedis direct(RunningServer s) {
        return new Jedis(s.endpoint().host(), s.endpoint().port());
    }


    private static void resetStats(RunningServer s) {
        try (Jedis j = direct(s)) {
            j.configResetStat();
        }
    }

    private static String uniqueName() {
        return "rt-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    private static void cycles(DistributedLock lock, int n) {
        for (int i = 0; i < n; i++) {
            LockHandle h = lock.tryAcquire().orElseThrow();
            assertThat(h.release()).isTrue();
        }
    }

    @Test
    @DisplayName("single node: an uncontended acquire + release is 2 commands (2 round trips)")
    void singleNode_twoCommandsPerCycle() {
        RunningServer server = servers.get(0);
        try (RespProxy proxy = RespProxy.start(
                        server.endpoint().host(), server.endpoint().port());
                LockClient client = Latchkey.connect("redis://127.0.0.1:" + proxy.port())) {
            DistributedLock lock = client.lock(uniqueName());
            cycles(lock, 2); // connection handshake and script cache warm
            proxy.resetCount();
            resetStats(server);
            cycles(lock, CYCLES);
            assertThat(proxy.commands())
                    .as("commands on the wire: %s", proxy.commandNames())
                    .isEqualTo(2L * CYCLES);
            assertThat(RedisServers.evalshaCalls(server))
                    .as("EVALSHA calls seen by the server")
                    .isEqualTo(2L * CYCLES);
            // the check at connect opens its own connection and closes it, then opens the pool's first one
            assertThat(proxy.connections())
                    .as("connections: the check's, and the pool's one, opened at connect")
                    .isEqualTo(2);
        }
    }

    @Test
    @DisplayName("Redlock-3: 2 parallel rounds per cycle; a third round (fence write-back) when counters diverge")
    void redlock_twoRoundsPlusFenceWriteBack() {
        List<RespProxy> proxies = new ArrayList<>();
        try {
            StringBuilder uri = new StringBuilder("redlock://");
            for (RunningServer s : servers) {
                RespProxy p = RespProxy.start(s.endpoint().host(), s.endpoint().port());
                proxies.add(p);
                uri.append(proxies.size() == 1 ? "" : ",").append("127.0.0.1:").append(p.port());
            }
            try (LockClient client = Latchkey.connect(uri.toString())) {
                String name = uniqueName();
                DistributedLock lock = client.lock(name);
                cycles(lock, 2);
                proxies.forEach(RespProxy::resetCount);
                servers.forEach(RoundTripTest::resetStats);
                cycles(lock, CYCLES);
                for (int i = 0; i < 3; i++) {
                    assertThat(proxies.get(i).commands())
                            .as("commands to node %d", i)
                            .isEqualTo(2L * CYCLES);
                    assertThat(RedisServers.evalshaCalls(servers.get(i)))
                            .as("EVALSHA calls on node %d", i)
                            .isEqualTo(2L * CYCLES);
                }

                // node 0's counter runs ahead (as after a grant only it saw): the token is the maximum, and it
                // is written back to the two nodes that lag before the handle is returned
                RedisKeys.NameKeys keys = new RedisKeys("latchkey:").of(name);
                try (Jedis j = direct(servers.get(0))) {
                    j.set(keys.fence(), "500".getBytes());
                }
                cycles(lock, 1); // the write-back script's first use: NOSCRIPT, then EVAL caches it
                try (Jedis j = direct(servers.get(0))) {
                    j.set(keys.fence(), "1000".getBytes());
                }
                proxies.forEach(RespProxy::resetCount);
                LockHandle h = lock.tryAcquire().orElseThrow();
                assertThat(h.fencingToken()).isEqualTo(1001);
                assertThat(h.release()).isTrue();
                assertThat(proxies.get(0).commands())
                        .as("node 0: acquire + release: %s", proxies.get(0).commandNames())
                        .isEqualTo(2);
                assertThat(proxies.get(1).commands())
                        .as(
                                "node 1: acquire + write-back + release: %s",
                                proxies.get(1).commandNames())
                        .isEqualTo(3);
                assertThat(proxies.get(2).commands())
                        .as(
                                "node 2: acquire + write-back + release: %s",
                                proxies.get(2).commandNames())
                        .isEqualTo(3);
                for (RunningServer s : servers) {
                    try (Jedis j = direct(s)) {
                        assertThat(new String(j.get(keys.fence()))).isEqualTo("1001");
                    }
                }
                // counters agree again: back to 2 rounds, tokens keep increasing
                proxies.forEach(RespProxy::resetCount);
                LockHandle next = lock.tryAcquire().orElseThrow();
                assertThat(next.fencingToken()).isEqualTo(1002);
                next.release();
                Awaitility.await()
                        .atMost(Duration.ofSeconds(2))
                        .until(() -> proxies.stream().allMatch(p -> p.commands() == 2));
            }
        } finally {
            proxies.forEach(RespProxy::close);
        }
    }

    @Test
    @DisplayName("read-write locks: 2 commands per read or write cycle on one node, 2 parallel rounds on Redlock-3")
    void readWrite_twoCommandsPerCycleOnEachNode() {
        List<RespProxy> proxies = new ArrayList<>();
        try {
            StringBuilder uri = new StringBuilder("redlock://");
            for (RunningServer s : servers) {
                RespProxy p = RespProxy.start(s.endpoint().host(), s.endpoint().port());
                proxies.add(p);
                uri.append(proxies.size() == 1 ? "" : ",").append("127.0.0.1:").append(p.port());
            }
            try (LockClient single = Latchkey.connect(
                            "redis://127.0.0.1:" + proxies.get(0).port());
                    LockClient quorum = Latchkey.connect(uri.toString())) {
                for (LockClient client : List.of(single, quorum)) {
                    DistributedReadWriteLock rw = client.readWriteLock(uniqueName());
                    cycles(rw.readLock(), 2);
                    cycles(rw.writeLock(), 2);
                    proxies.forEach(RespProxy::resetCount);
                    cycles(rw.readLock(), CYCLES);
                    cycles(rw.writeLock(), CYCLES);
                    int nodes = client == single ? 1 : 3;
                    for (int i = 0; i < nodes; i++) {
                        assertThat(proxies.get(i).commands())
                                .as(
                                        "%s: commands to node %d: %s",
                                        client, i, proxies.get(i).commandNames())
                                .isEqualTo(4L * CYCLES);
                    }
                }
            }
        } finally {
            proxies.forEach(RespProxy::close);
        }
    }
}

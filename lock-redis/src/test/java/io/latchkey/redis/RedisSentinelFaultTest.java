package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.redis.fixtures.RedisTopologyServers;
import io.latchkey.servers.RunningServer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

/**
 * Sentinel fail-over while a lock is held, on a real group (a master, two replicas, three Sentinels with a 1 s
 * down-after): the master is SIGKILLed. Redis replicates asynchronously, so what the holder gets depends on
 * whether its grant reached a replica before the crash; both cases are run and their figures printed
 * ({@code [sentinel-failover]} lines, quoted in the README).
 *
 * <ul>
 *   <li>The grant had reached the replicas: the promoted replica has it, the holder's renewals reach the new
 *       master and it keeps the lock; another client is refused, and the next grant's token is greater.</li>
 *   <li>The grant had not (replication cut while it was made): the promoted replica has no grant, the
 *       holder's renewal finds none and its loss signal fires; another client can take the lock, and its
 *       fencing token may repeat the lost holder's (the counter's last increment was lost too).</li>
 * </ul>
 */
@Timeout(180)
class RedisSentinelFaultTest {
    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(60);

    private static String uniqueName(String what) {
        return "sentinel-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36) + "/" + what;
    }

    private static boolean hasGrant(RunningServer dataNode, String name) {
        try (Jedis j = new Jedis(dataNode.endpoint().host(), dataNode.endpoint().port())) {
            return j.exists(new RedisKeys("latchkey:").of(name).lock());
        }
    }

    private static void replicaConfig(RunningServer replica, String masterauth) {
        try (Jedis j = new Jedis(replica.endpoint().host(), replica.endpoint().port())) {
            j.configSet("masterauth", masterauth);
        }
    }

    private static boolean linkUp(RunningServer replica) {
        try (Jedis j = new Jedis(replica.endpoint().host(), replica.endpoint().port())) {
            return j.info("replication").contains("master_link_status:up");
        }
    }

    @Test
    @DisplayName("master killed after the grant reached the replicas: the holder keeps the lock on the new master")
    void failoverAfterReplication_holderKeepsTheLock() throws Exception {
        try (RedisTopologyServers.SentinelGroup group = RedisTopologyServers.sentinelGroup();
                LockClient holder = Latchkey.connect(group.uri());
                LockClient other = Latchkey.connect(group.uri())) {
            String name = uniqueName("replicated");
            int oldMaster = group.currentMasterPort();
            LockHandle h = holder.lock(name, LockOptions.builder().lease(Duration.ofSeconds(20)).build())
                    .tryAcquire()
                    .orElseThrow();
            await("the grant on both replicas")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> group.replicas().stream().allMatch(r -> hasGrant(r, name)));

            long killed = System.nanoTime();
            group.master().requireFaultInjection().kill();
            await("a replica promoted").atMost(FAILOVER_BOUND).until(() -> group.currentMasterPort() != oldMaster);
            long promotedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            // the first answer of the new master through the Sentinel client: another client is refused
            await("another client answered by the new master")
                    .atMost(FAILOVER_BOUND)
                    .ignoreExceptions()
                    .until(() -> other.lock(name).tryAcquire().isEmpty());
            long servedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);

            assertThat(h.isValid()).as("the holder's grant survived the fail-over").isTrue();
            assertThat(h.lost().toCompletableFuture()).isNotDone();
            long token = h.fencingToken();
            h.close();
            assertThat(h.lost().toCompletableFuture()).as("released, not lost").isNotCompletedExceptionally();
            Optional<LockHandle> next = other.lock(name).tryAcquire();
            assertThat(next).as("free after the holder's release on the new master").isPresent();
            assertThat(next.get().fencingToken()).isGreaterThan(token);
            next.get().close();
            System.out.printf(
                    "[sentinel-failover] replicated grant: replica promoted %d ms after SIGKILL, new master serving "
                            + "clients after %d ms; holder kept the lock; next token %d > %d%n",
                    promotedMs, servedMs, next.get().fencingToken(), token);
        }
    }

    @Test
    @DisplayName("master killed before the grant reached a replica: the lock is lost and the holder's loss signal fires")
    void failoverBeforeReplication_holderIsToldOfTheLoss() throws Exception {
        try (RedisTopologyServers.SentinelGroup group = RedisTopologyServers.sentinelGroup();
                LockClient holder = Latchkey.connect(group.uri());
                LockClient other = Latchkey.connect(group.uri())) {
            String name = uniqueName("unreplicated");
            int oldMaster = group.currentMasterPort();
            Duration lease = Duration.ofSeconds(6);
            // cut replication: the replicas' next AUTH fails, the master drops their links, and they stay down
            // (a frozen replica would not do: the kernel still buffers the stream, and it applies it on SIGCONT)
            group.replicas().forEach(r -> replicaConfig(r, "bogus-password"));
            try (Jedis m = new Jedis(group.master().endpoint().host(), group.master().endpoint().port())) {
                m.clientKill(new redis.clients.jedis.params.ClientKillParams().type(
                        redis.clients.jedis.args.ClientType.REPLICA));
            }
            await("both replication links down")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> group.replicas().stream().allMatch(r -> !linkUp(r)));
            LockHandle h;
            try {
                h = holder.lock(name, LockOptions.builder().lease(lease).build())
                        .tryAcquire()
                        .orElseThrow();
                long killed = System.nanoTime();
                assertThat(group.replicas()).noneMatch(r -> hasGrant(r, name));
                group.master().requireFaultInjection().kill();
                group.replicas().forEach(r -> replicaConfig(r, ""));

                await("a replica promoted").atMost(FAILOVER_BOUND).until(() -> group.currentMasterPort() != oldMaster);
                long promotedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
                LockLoss loss = h.lost().toCompletableFuture().get(FAILOVER_BOUND.toSeconds(), TimeUnit.SECONDS);
                long lossMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
                assertThat(h.isValid()).isFalse();
                Optional<LockHandle> taken = Optional.empty();
                long deadline = System.nanoTime() + FAILOVER_BOUND.toNanos();
                while (taken.isEmpty() && System.nanoTime() < deadline) {
                    try {
                        taken = other.lock(name).tryAcquire(Duration.ofSeconds(1));
                    } catch (io.latchkey.BackendUnavailableException stillFailingOver) {
                        // the other client's pool may still point at the dead master for a moment
                    }
                }
                assertThat(taken).as("the promoted replica has no grant: the lock is free").isPresent();
                long takenMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
                System.out.printf(
                        "[sentinel-failover] unreplicated grant: replica promoted %d ms after SIGKILL, holder's loss "
                                + "signal (%s) at %d ms (lease %d ms), another client granted at %d ms; tokens: lost "
                                + "holder %d, new holder %d%n",
                        promotedMs,
                        loss.reason(),
                        lossMs,
                        lease.toMillis(),
                        takenMs,
                        h.fencingToken(),
                        taken.get().fencingToken());
                taken.get().close();
            } finally {
                group.replicas().forEach(r -> replicaConfig(r, ""));
            }
        }
    }
}

package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.Fairness;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Batched renewal on Redis (RENEW_MANY): a client holding many locks renews them in a few script calls per renewal
 * interval, counted by the server's INFO commandstats, and keeps every one; on Redlock each node gets the batch; a
 * server that lost its data fails every renewal of the batch as RENEWAL_FAILED; a cluster does not batch.
 */
class RenewalBatchTest {
    private static final int LOCKS = 200;
    private static final LockOptions LEASE = LockOptions.builder()
            .lease(Duration.ofSeconds(3))
            .renewInterval(Duration.ofSeconds(1))
            .build();
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

    /** EVALSHA calls the server has seen since its stats were reset. */

    private static String prefix() {
        return "rb-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36) + "/";
    }

    private static List<LockHandle> holdMany(LockClient client, String prefix) {
        List<LockHandle> held = new ArrayList<>();
        for (int i = 0; i < LOCKS; i++) {
            held.add(client.lock(prefix + i, LEASE).tryAcquire().orElseThrow());
        }
        return held;
    }

    /**
     * Holds LOCKS locks for three renewal intervals and returns the script calls each server saw meanwhile (the
     * acquisitions are before the count starts).
     */
    private static long renewalCallsWhileHolding(String uri, List<RunningServer> nodes) {
        String prefix = prefix();
        try (LockClient client = Latchkey.connect(uri, Map.of());
                LockClient other = Latchkey.connect(uri, Map.of())) {
            List<LockHandle> held = holdMany(client, prefix);
            nodes.forEach(s -> {
                try (Jedis j = direct(s)) {
                    j.configResetStat();
                }
            });
            long begin = System.nanoTime();
            await().atMost(Duration.ofSeconds(10))
                    .pollDelay(Duration.ofMillis(3100))
                    .until(() -> System.nanoTime() - begin >= Duration.ofMillis(3100).toNanos());
            long calls = RedisServers.evalshaCalls(nodes.get(0));
            assertThat(held).allMatch(LockHandle::isValid);
            assertThat(held).noneMatch(h -> h.lost().toCompletableFuture().isDone());
            for (int i = 0; i < LOCKS; i += 7) {
                assertThat(other.lock(prefix + i).tryAcquire())
                        .as("lock %s, held and renewed for three leases' worth of intervals", prefix + i)
                        .isEmpty();
            }
            System.out.println("RenewalBatchTest " + uri.substring(0, uri.indexOf(':')) + ": " + LOCKS + " locks held 3.1 s,"
                    + " renew every 1 s: " + calls + " script calls on the first node (unbatched: about "
                    + 3 * LOCKS + ")");
            return calls;
        }
    }

    @Test
    @DisplayName("single node: 200 locks held for three renewal intervals cost a few script calls, not 600")
    void singleNodeRenewsInBatches() {
        long calls = renewalCallsWhileHolding(RedisServers.uri(servers.get(0)), servers.subList(0, 1));
        // unbatched, three rounds of 200 renewals are about 600 calls; batched, 8 were seen on an idle machine. Locks
        // taken one after another over more than 10 ms fall into several gathers, as on a loaded machine where each
        // acquisition is slower: 150 still fails a client that renews lock by lock
        assertThat(calls).isGreaterThanOrEqualTo(3).isLessThanOrEqualTo(150);
    }

    @Test
    @DisplayName("Redlock: every node gets the batch, and every lock is kept")
    void redlockRenewsInBatchesOnEveryNode() {
        long calls = renewalCallsWhileHolding(RedisServers.redlockUri(servers), servers);
        // a Redlock acquisition takes about a millisecond, so 200 locks taken one after another span some 15
        // gathers of 10 ms and renew in that many calls a round (38 seen on an idle machine); 150 as above
        assertThat(calls).isGreaterThanOrEqualTo(3).isLessThanOrEqualTo(150);
    }

    @Test
    @DisplayName("a server that lost its data fails every renewal of the batch as RENEWAL_FAILED")
    void lostDataEndsEveryGrantOfTheBatch() {
        String prefix = prefix();
        try (LockClient client = Latchkey.connect(RedisServers.uri(servers.get(1)), Map.of())) {
            List<LockHandle> held = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                held.add(client.lock(prefix + i, LEASE).tryAcquire().orElseThrow());
            }
            try (Jedis j = direct(servers.get(1))) {
                j.flushAll();
            }
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> held.stream().allMatch(h -> h.lost().toCompletableFuture().isDone()));
            assertThat(held)
                    .allMatch(h -> h.lost().toCompletableFuture().join().reason() == LockLoss.Reason.RENEWAL_FAILED);
        }
    }

    /**
     * One renewAll with two leases and each of RENEW_MANY's answers, in an order that interleaves the leases: every
     * grant is answered in its own place, a renewed key expires after its own lease (not the batch's first), and each
     * refusal keeps its reason. It fails if the lease of one grant is applied to another, or answers are shifted.
     */
    @Test
    @DisplayName("one batch with two leases: each grant renewed for its own lease, each refusal for its own reason")
    void oneBatchWithTwoLeasesAnswersEachGrantInItsPlace() {
        String p = prefix();
        RunningServer server = servers.get(2);
        try (RedisLockBackend backend = RedisLockBackend.connect(RedisServers.uri(server))) {
            Grant shortOne = grant(backend, p + "short", Duration.ofSeconds(5));
            Grant released = grant(backend, p + "released", Duration.ofSeconds(5));
            Grant longOne = grant(backend, p + "long", Duration.ofSeconds(5));
            Grant dataLost = grant(backend, p + "data-lost", Duration.ofSeconds(5));
            Grant stale = grant(backend, p + "stale", Duration.ofSeconds(5));
            Grant shortToo = grant(backend, p + "short-too", Duration.ofSeconds(5));
            assertThat(backend.release(released)).isTrue();
            try (Jedis j = direct(server)) {
                GrantBytes lost = (GrantBytes) dataLost.state();
                j.del(lost.keys.lock(), lost.keys.fence()); // as after a restart without persistence
            }
            // the same owner and name with an older token: a stale grant never renews the newer one
            Grant older = new Grant(stale.name(), stale.owner(), stale.fencingToken() - 1, 0, null);

            Duration twenty = Duration.ofSeconds(20);
            Duration ninety = Duration.ofSeconds(90);
            List<RenewResult> answers = backend.renewAll(
                    List.of(shortOne, released, longOne, dataLost, older, shortToo),
                    List.of(twenty, twenty, ninety, ninety, twenty, twenty));

            assertThat(answers).hasSize(6);
            assertThat(answers.get(0).held()).as("short, renewed").isTrue();
            assertThat(answers.get(1)).as("released before the batch").isEqualTo(RenewResult.notHeld());
            assertThat(answers.get(2).held()).as("long, renewed").isTrue();
            assertThat(answers.get(3))
                    .as("its keys gone, fence counter too")
                    .isEqualTo(RenewResult.notHeld(LockLoss.Reason.RENEWAL_FAILED));
            assertThat(answers.get(4)).as("an older token of the same owner").isEqualTo(RenewResult.notHeld());
            assertThat(answers.get(5).held()).as("short-too, renewed").isTrue();
            // the store's TTL is the lease stretched for clock drift (RedisGrants.storeTtlMillis): bounds apart
            try (Jedis j = direct(server)) {
                assertThat(j.pttl(((GrantBytes) shortOne.state()).keys.lock()))
                        .as("the short grant's key expires after its own lease")
                        .isBetween(15_000L, 25_000L);
                assertThat(j.pttl(((GrantBytes) shortToo.state()).keys.lock())).isBetween(15_000L, 25_000L);
                assertThat(j.pttl(((GrantBytes) longOne.state()).keys.lock()))
                        .as("the long grant's key expires after its own lease")
                        .isBetween(80_000L, 100_000L);
            }
        }
    }

    private static Grant grant(RedisLockBackend backend, String name, Duration lease) {
        AcquireResult r = backend.tryAcquire(new AcquireRequest(name, "owner-of-" + name, lease, Fairness.NONE));
        assertThat(r).as("acquire %s", name).isInstanceOf(Grant.class);
        return (Grant) r;
    }

    @Test
    @DisplayName("the batch size: 128 on one node and on Redlock")
    void batchSizes() {
        try (RedisLockBackend single = RedisLockBackend.connect(RedisServers.uri(servers.get(0)));
                RedisLockBackend redlock = RedisLockBackend.connect(RedisServers.redlockUri(servers))) {
            assertThat(single.renewalBatchSize()).isEqualTo(RedisLockBackend.RENEWAL_BATCH);
            assertThat(redlock.renewalBatchSize()).isEqualTo(RedisLockBackend.RENEWAL_BATCH);
        }
    }
}

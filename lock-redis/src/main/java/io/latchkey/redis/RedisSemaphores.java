package io.latchkey.redis;

import static io.latchkey.redis.RedisScripts.asLong;
import static io.latchkey.redis.RedisScripts.bytes;
import static io.latchkey.redis.RedisScripts.utf8;

import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.SemaphoreCounts;
import java.time.Duration;
import java.util.List;

/*
 * Semaphores on one Redis node: one script per operation (RedisScripts.SEM_*), so acquire + release is two round
 * trips, as for a lock. Judged by the server's clock; the permit count is stored with the first grant and kept.
 *
 * Redlock does not offer them, and says why (REDLOCK_REFUSAL): a permit recorded on a quorum of nodes does not
 * bound the count fleet-wide. With three nodes and two permits, grants on nodes {1,2}, {2,3} and {1,3} each fit
 * every node's count, yet three permits are out.
 *
 * Stateless and thread-safe: every call borrows its own pooled connection.
 */
final class RedisSemaphores {
    static final String REDLOCK_REFUSAL = "Redlock does not offer semaphores: a permit recorded on a quorum of nodes"
            + " does not bound the count fleet-wide (with 3 nodes and 2 permits, grants on nodes {1,2}, {2,3} and"
            + " {1,3} each fit every node's count, yet 3 permits are out); use redis:// for semaphores";

    private final RedisConnection connection;
    private final RedisKeys keys;
    private final RedisGrants grants;
    private final RedisWaiting waiting;

    RedisSemaphores(RedisConnection connection, RedisKeys keys, RedisGrants grants, RedisWaiting waiting) {
        this.connection = connection;
        this.keys = keys;
        this.grants = grants;
        this.waiting = waiting;
    }

    AcquireResult tryAcquire(AcquireRequest request) {
        GrantKind kind = request.kind();
        RedisKeys.SemaphoreKeys k = keys.semaphore(request.name());
        long start = System.nanoTime();
        List<?> reply = (List<?>) connection.evalOnSingleNode(
                "acquire permits of",
                request.name(),
                RedisScripts.SEM_ACQUIRE,
                3,
                k.state(),
                k.expiries(),
                k.waiting(),
                utf8(request.owner()),
                grants.storeTtlArgument(request.lease()),
                bytes(kind.permits()),
                bytes(kind.limit()));
        long status = asLong(reply.get(0));
        if (status == -1) {
            throw otherCount(request.name(), asLong(reply.get(1)), kind.limit());
        }
        if (status == 1) {
            return new Grant(
                    request.name(),
                    request.owner(),
                    asLong(reply.get(1)),
                    start + request.lease().toNanos(),
                    null,
                    kind);
        }
        long firstExpiryMs = asLong(reply.get(1));
        return new Busy(null, -1, firstExpiryMs < 0 ? null : Duration.ofMillis(firstExpiryMs));
    }

    RenewResult renew(Grant grant, Duration lease) {
        RedisKeys.SemaphoreKeys k = keys.semaphore(grant.name());
        long start = System.nanoTime();
        long renewed = asLong(connection.evalOnSingleNode(
                "renew permits of",
                grant.name(),
                RedisScripts.SEM_RENEW,
                2,
                k.state(),
                k.expiries(),
                utf8(grant.owner()),
                bytes(grant.fencingToken()),
                grants.storeTtlArgument(lease)));
        return renewed == 1 ? RenewResult.renewed(start + lease.toNanos()) : RenewResult.notHeld();
    }

    boolean release(Grant grant) {
        RedisKeys.SemaphoreKeys k = keys.semaphore(grant.name());
        return asLong(connection.evalOnSingleNode(
                        "release permits of",
                        grant.name(),
                        RedisScripts.SEM_RELEASE,
                        4,
                        k.state(),
                        k.expiries(),
                        k.wake(),
                        k.waiting(),
                        utf8(grant.owner()),
                        bytes(grant.fencingToken()),
                        RedisWaiting.WAKE_TTL_MS))
                == 1;
    }

    int availablePermits(String name, int limit) {
        RedisKeys.SemaphoreKeys k = keys.semaphore(name);
        List<?> reply = (List<?>) connection.evalOnSingleNode(
                "count the permits of", name, RedisScripts.SEM_AVAILABLE, 2, k.state(), k.expiries(), bytes(limit));
        if (asLong(reply.get(0)) == -1) {
            throw otherCount(name, asLong(reply.get(1)), limit);
        }
        return (int) asLong(reply.get(1));
    }

    boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        return waiting.awaitWake(name, keys.semaphore(name).wake(), timeout);
    }

    private IllegalArgumentException otherCount(String name, long stored, int asked) {
        return SemaphoreCounts.conflict(name, connection.description(), stored, asked);
    }
}

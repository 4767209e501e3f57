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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/*
 * Read-write locks on one Redis node: one script per operation (RedisScripts.RW_*), so acquire + release is two
 * round trips, as for a lock. Writer preference: a writer that finds the lock busy records its intent (until its
 * lease) and new readers wait while one lives; the core withdraws it when the writer gives up.
 *
 * Redlock does not offer them yet (REDLOCK_REFUSAL): a quorum read-write lock can be made as safe as Redlock (any
 * reader quorum and any writer quorum share a node, which refuses one of them), but it is not built.
 *
 * Stateless and thread-safe: every call borrows its own pooled connection.
 */
final class RedisReadWrite {
    static final String REDLOCK_REFUSAL = "read-write locks over Redlock are not built yet (a reader quorum and a"
            + " writer quorum would share a node, so it can be made as safe as Redlock); use redis:// for them";
    private static final byte[] READ = "r".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WRITE = "w".getBytes(StandardCharsets.US_ASCII);

    private final RedisConnection connection;
    private final RedisKeys keys;
    private final RedisGrants grants;
    private final RedisWaiting waiting;

    RedisReadWrite(RedisConnection connection, RedisKeys keys, RedisGrants grants, RedisWaiting waiting) {
        this.connection = connection;
        this.keys = keys;
        this.grants = grants;
        this.waiting = waiting;
    }

    private static byte[] side(GrantKind kind) {
        return kind.type() == GrantKind.Type.WRITE ? WRITE : READ;
    }

    AcquireResult tryAcquire(AcquireRequest request) {
        RedisKeys.ReadWriteKeys k = keys.readWrite(request.name());
        long start = System.nanoTime();
        List<?> reply = (List<?>) connection.evalOnSingleNode(
                "acquire",
                request.name(),
                RedisScripts.RW_ACQUIRE,
                4,
                k.state(),
                k.readers(),
                k.intents(),
                k.waiting(),
                utf8(request.owner()),
                bytes(grants.storeTtlMillis(request.lease().toNanos())),
                side(request.kind()));
        if (asLong(reply.get(0)) == 1) {
            return new Grant(
                    request.name(),
                    request.owner(),
                    asLong(reply.get(1)),
                    start + request.lease().toNanos(),
                    null,
                    request.kind());
        }
        return Busy.UNKNOWN;
    }

    RenewResult renew(Grant grant, Duration lease) {
        RedisKeys.ReadWriteKeys k = keys.readWrite(grant.name());
        long start = System.nanoTime();
        long renewed = asLong(connection.evalOnSingleNode(
                "renew",
                grant.name(),
                RedisScripts.RW_RENEW,
                3,
                k.state(),
                k.readers(),
                k.intents(),
                utf8(grant.owner()),
                bytes(grant.fencingToken()),
                bytes(grants.storeTtlMillis(lease.toNanos())),
                side(grant.kind())));
        return renewed == 1 ? RenewResult.renewed(start + lease.toNanos()) : RenewResult.notHeld();
    }

    boolean release(Grant grant) {
        RedisKeys.ReadWriteKeys k = keys.readWrite(grant.name());
        return asLong(connection.evalOnSingleNode(
                        "release",
                        grant.name(),
                        RedisScripts.RW_RELEASE,
                        5,
                        k.state(),
                        k.readers(),
                        k.intents(),
                        k.wake(),
                        k.waiting(),
                        utf8(grant.owner()),
                        bytes(grant.fencingToken()),
                        side(grant.kind()),
                        RedisWaiting.WAKE_TTL_MS))
                == 1;
    }

    Grant downgrade(Grant write, AcquireRequest read) {
        RedisKeys.ReadWriteKeys k = keys.readWrite(write.name());
        long start = System.nanoTime();
        List<?> reply = (List<?>) connection.evalOnSingleNode(
                "downgrade",
                write.name(),
                RedisScripts.RW_DOWNGRADE,
                5,
                k.state(),
                k.readers(),
                k.intents(),
                k.wake(),
                k.waiting(),
                utf8(write.owner()),
                bytes(write.fencingToken()),
                utf8(read.owner()),
                bytes(grants.storeTtlMillis(read.lease().toNanos())),
                RedisWaiting.WAKE_TTL_MS);
        if (asLong(reply.get(0)) != 1) {
            return null;
        }
        return new Grant(
                read.name(),
                read.owner(),
                asLong(reply.get(1)),
                start + read.lease().toNanos(),
                null,
                read.kind());
    }

    void withdraw(AcquireRequest request) {
        RedisKeys.ReadWriteKeys k = keys.readWrite(request.name());
        connection.evalOnSingleNode(
                "withdraw the waiting writer of",
                request.name(),
                RedisScripts.RW_WITHDRAW,
                3,
                k.intents(),
                k.wake(),
                k.waiting(),
                utf8(request.owner()),
                RedisWaiting.WAKE_TTL_MS);
    }

    boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        return waiting.awaitWake(name, keys.readWrite(name).wake(), timeout);
    }
}

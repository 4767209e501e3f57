package io.latchkey.redis;

import static io.latchkey.redis.RedisScripts.asLong;
import static io.latchkey.redis.RedisScripts.bytes;
import static io.latchkey.redis.RedisScripts.utf8;

import io.latchkey.redis.RedisScripts.AcquireReply;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.RenewResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/*
 * Read-write locks: one script per operation (ReadWriteScripts), so acquire + release is two round trips on one
 * node, as for a lock. Writer preference: a writer that finds the lock busy records its intent (until its lease)
 * and new readers wait while one lives; the core withdraws it when the writer gives up.
 *
 * Redlock. Each step is a quorum round of the same scripts (RedisGrants.acquire, RedisRenewal, RedisGrants.release),
 * and it is as safe as Redlock's lock: any reader quorum and any writer quorum share a node, and that node refuses
 * one of them, so a writer never holds while a reader (or another writer) holds. The token is the maximum over the
 * quorum, written back (RAISE_FENCE) to the nodes of the quorum that granted less, so the next quorum, which shares
 * a node with this one, counts on from it. A failed attempt gives back its grant by owner (token '*') on every node
 * that may hold it. Writer preference holds per node: a waiting writer's intent keeps readers out of the nodes that
 * refused it, which a reader quorum cannot avoid once a quorum of nodes refused the writer. A downgrade is a quorum
 * round too; where it fails short of a quorum, the read grants it made are given back and the core releases the
 * write grant, so the caller holds nothing.
 *
 * Stateless and thread-safe: every call borrows its own pooled connections.
 */
final class RedisReadWrite {
    private static final byte[] READ = "r".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WRITE = "w".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ANY_TOKEN = "*".getBytes(StandardCharsets.US_ASCII);

    private final RedisConnection connection;
    private final RedisKeys keys;
    private final RedisGrants grants;
    private final RedisRenewal renewal;
    private final RedisWaiting waiting;

    RedisReadWrite(
            RedisConnection connection,
            RedisKeys keys,
            RedisGrants grants,
            RedisRenewal renewal,
            RedisWaiting waiting) {
        this.connection = connection;
        this.keys = keys;
        this.grants = grants;
        this.renewal = renewal;
        this.waiting = waiting;
    }

    private static byte[] side(GrantKind kind) {
        return kind.type() == GrantKind.Type.WRITE ? WRITE : READ;
    }

    AcquireResult tryAcquire(AcquireRequest request) {
        RedisKeys.ReadWriteKeys k = keys.readWrite(request.name());
        byte[] owner = utf8(request.owner());
        byte[] ttl = grants.storeTtlArgument(request.lease());
        byte[] side = side(request.kind());
        return grants.acquire(
                "acquire",
                request,
                steps(
                        k,
                        owner,
                        side,
                        new ScriptCall<>(
                                ReadWriteScripts.ACQUIRE,
                                4,
                                RedisReadWrite::acquireReply,
                                k.state(),
                                k.readers(),
                                k.intents(),
                                k.waiting(),
                                owner,
                                ttl,
                                side)));
    }

    RenewResult renew(Grant grant, Duration lease) {
        RedisKeys.ReadWriteKeys k = keys.readWrite(grant.name());
        byte[] owner = utf8(grant.owner());
        byte[] token = bytes(grant.fencingToken());
        byte[] ttl = grants.storeTtlArgument(lease);
        byte[] side = side(grant.kind());
        return renewal.renew(
                grant.name(),
                lease,
                n -> asLong(n.eval(
                        ReadWriteScripts.RENEW, 3, k.state(), k.readers(), k.intents(), owner, token, ttl, side)));
    }

    boolean release(Grant grant) {
        return grants.release(
                grant.name(),
                releaseOn(
                        keys.readWrite(grant.name()),
                        utf8(grant.owner()),
                        bytes(grant.fencingToken()),
                        side(grant.kind())));
    }

    /** The write grant becomes {@code read}'s grant; null if the store no longer held the write grant. */
    Grant downgrade(Grant write, AcquireRequest read) {
        RedisKeys.ReadWriteKeys k = keys.readWrite(write.name());
        byte[] writer = utf8(write.owner());
        byte[] writeToken = bytes(write.fencingToken());
        byte[] reader = utf8(read.owner());
        byte[] ttl = grants.storeTtlArgument(read.lease());
        AcquireResult r = grants.acquire(
                "downgrade",
                read,
                steps(
                        k,
                        reader,
                        READ,
                        new ScriptCall<>(
                                ReadWriteScripts.DOWNGRADE,
                                5,
                                RedisReadWrite::acquireReply,
                                k.state(),
                                k.readers(),
                                k.intents(),
                                k.wake(),
                                k.waiting(),
                                writer,
                                writeToken,
                                reader,
                                ttl,
                                RedisWaiting.WAKE_TTL_MS)));
        return r instanceof Grant g ? g : null; // refused: the write grant was gone
    }

    /** A writer that gave up: its intent goes from every node, so readers may go on. */
    void withdraw(AcquireRequest request) {
        RedisKeys.ReadWriteKeys k = keys.readWrite(request.name());
        byte[] owner = utf8(request.owner());
        NodeRound.Replies<Object> replies = connection.round(
                connection.nodes(),
                n -> n.eval(
                        ReadWriteScripts.WITHDRAW,
                        3,
                        k.intents(),
                        k.wake(),
                        k.waiting(),
                        owner,
                        RedisWaiting.WAKE_TTL_MS),
                System.nanoTime() + connection.timeoutNanos());
        if (replies.failures() == replies.size()) {
            RedisErrors errors = connection.errors();
            throw errors.unavailable(
                    "withdraw the waiting writer of", request.name(), errors.summary(replies, "any node"), replies);
        }
    }

    boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        return waiting.awaitWake(name, keys.readWrite(name).wake(), timeout);
    }

    /** A quorum acquisition whose per-node step is {@code acquire} (a reply {1, token} or {0}). */
    private RedisGrants.QuorumSteps steps(
            RedisKeys.ReadWriteKeys k, byte[] owner, byte[] side, ScriptCall<AcquireReply> acquire) {
        return new RedisGrants.QuorumSteps() {
            @Override
            public ScriptCall<AcquireReply> acquire() {
                return acquire;
            }

            @Override
            public boolean raise(RedisNode node, long token) {
                return asLong(node.eval(
                                ReadWriteScripts.RAISE_FENCE,
                                3,
                                k.state(),
                                k.readers(),
                                k.intents(),
                                owner,
                                bytes(token),
                                side))
                        == 1;
            }

            @Override
            public void giveBack(RedisNode node) {
                // 0 if it held nothing there; on Redlock its owner waits next, so the node is flagged as waited on
                long unused = releaseOn(k, owner, ANY_TOKEN, side, waiting.giveBackWakeMode())
                        .apply(node);
            }
        };
    }

    /** A read-write acquire script's reply: {1, token} or {0}. */
    private static AcquireReply acquireReply(Object reply) {
        List<?> r = (List<?>) reply;
        return asLong(r.get(0)) == 1
                ? new AcquireReply(true, asLong(r.get(1)), -1, null)
                : new AcquireReply(false, -1, -1, null);
    }

    private ScriptCall<Long> releaseOn(RedisKeys.ReadWriteKeys k, byte[] owner, byte[] token, byte[] side) {
        return releaseOn(k, owner, token, side, waiting.releaseWakeMode());
    }

    private ScriptCall<Long> releaseOn(
            RedisKeys.ReadWriteKeys k, byte[] owner, byte[] token, byte[] side, byte[] wakeMode) {
        return new ScriptCall<>(
                ReadWriteScripts.RELEASE,
                5,
                RedisScripts::asLong,
                k.state(),
                k.readers(),
                k.intents(),
                k.wake(),
                k.waiting(),
                owner,
                token,
                side,
                RedisWaiting.WAKE_TTL_MS,
                wakeMode);
    }
}

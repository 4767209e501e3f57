package io.latchkey.redis;

import static io.latchkey.redis.RedisScripts.asLong;
import static io.latchkey.redis.RedisScripts.bytes;
import static io.latchkey.redis.RedisScripts.utf8;

import io.latchkey.redis.RedisScripts.AcquireReply;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Acquire and release as quorum rounds, the same code for one node (the quorum-of-one case, no executor)
 * and for Redlock over N nodes (quorum N/2+1):
 *
 * - acquire: the acquire script on every node in parallel; with a quorum of grants within the validity
 *   lease - elapsed - (clockDrift x lease + 2 ms), the token is the maximum counter over the quorum, written
 *   back (RAISE_FENCE) to the nodes of the quorum that lag before the grant is returned. A failed attempt is
 *   released on every node that might hold it. A busy answer reports the holder most nodes named.
 * - release: compare-and-delete on every node, which also wakes one waiter (RedisWaiting).
 *
 * The same rounds serve read-write locks (RedisReadWrite) with their own scripts (QuorumSteps).
 *
 * Both wait for every node (at most the per-node timeout), so that no request of theirs is still in flight
 * when they return: an acquire overtaken by the next release on another connection would leave an orphan,
 * and a release still in flight would make the next acquire see a stale holder. Waiting for every node anyway, both
 * are pipelined on the caller's thread when the nodes lend pooled connections (PipelinedRound): no thread hop.
 *
 * Concurrency design. Stateless apart from final fields, so thread-safe; each round's replies are a snapshot
 * (NodeRound), so late replies never change a decision.
 */
final class RedisGrants {
    /** The token argument of a failed attempt's give-back (RedisScripts.RELEASE): the attempt has no token. */
    private static final byte[] ANY_TOKEN = new byte[0];

    private static final Logger log = LoggerFactory.getLogger(RedisGrants.class);
    private static final long FIXED_DRIFT_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final RedisConnection connection;
    private final RedisKeys keys;
    private final RedisWaiting waiting;
    private final RedisErrors errors;
    private final double clockDrift;

    RedisGrants(RedisConnection connection, RedisKeys keys, RedisWaiting waiting, double clockDrift) {
        this.connection = connection;
        this.keys = keys;
        this.waiting = waiting;
        this.errors = connection.errors();
        this.clockDrift = clockDrift;
    }

    /**
     * The TTL written to the store for a lease: the smallest t with t - (clockDrift x t + 2 ms) >= lease,
     * rounded up to whole ms. Validity, counted from before the request with the Redlock formula
     * t - elapsed - drift(t), is then the full lease the caller asked for, never more.
     */
    long storeTtlMillis(long leaseNanos) {
        double ttl = (leaseNanos + FIXED_DRIFT_NANOS) / (1.0 - clockDrift);
        return Math.max(1, (long) Math.ceil(ttl / 1_000_000.0));
    }

    /** A lease and its store TTL in ASCII: most clients use one lease, so the last is kept (never mutated). */
    private record TtlBytes(long leaseNanos, byte[] ttl) {}

    private volatile TtlBytes lastTtl = new TtlBytes(-1, new byte[0]);

    /** {@link #storeTtlMillis} as the script argument, without encoding it again for the lease used last. */
    byte[] storeTtlArgument(Duration lease) {
        long leaseNanos = lease.toNanos();
        TtlBytes last = lastTtl;
        if (last.leaseNanos() == leaseNanos) {
            return last.ttl();
        }
        byte[] ttl = bytes(storeTtlMillis(leaseNanos));
        lastTtl = new TtlBytes(leaseNanos, ttl);
        return ttl;
    }

    /**
     * The scripts one primitive sends in a quorum acquisition: its acquire (or downgrade) script, the fence
     * write-back, and the give-back of a failed attempt.
     */
    interface QuorumSteps {
        /** The acquire (or downgrade) script call, the same on every node. */
        ScriptCall<AcquireReply> acquire();

        /** Writes the quorum's token back to a node that granted a lower one; false if it no longer holds it. */
        boolean raise(RedisNode node, long token);

        /** Gives back what the attempt may hold on the node (by owner: its token there may be unknown). */
        void giveBack(RedisNode node);

        /** What the grant carries for its later calls (Grant.state()), given its token; null for nothing. */
        default Object grantState(long token) {
            return null;
        }
    }

    AcquireResult tryAcquire(AcquireRequest request) {
        RedisKeys.NameKeys k = keys.of(request.name());
        byte[] owner = utf8(request.owner());
        byte[] ttlMs = storeTtlArgument(request.lease());
        return acquire("acquire", request, new QuorumSteps() {
            @Override
            public ScriptCall<AcquireReply> acquire() {
                return new ScriptCall<>(
                        RedisScripts.ACQUIRE, 3, AcquireReply::parse, k.lock(), k.fence(), k.waiting(), owner, ttlMs);
            }

            @Override
            public boolean raise(RedisNode n, long token) {
                return asLong(n.eval(RedisScripts.RAISE_FENCE, 2, k.lock(), k.fence(), owner, bytes(token))) == 1;
            }

            @Override
            public GrantBytes grantState(long token) {
                return new GrantBytes(keys, k, owner, bytes(token));
            }

            @Override
            public void giveBack(RedisNode n) {
                n.eval(
                        RedisScripts.RELEASE,
                        4,
                        k.lock(),
                        k.wake(),
                        k.waiting(),
                        k.fence(),
                        owner,
                        RedisWaiting.WAKE_TTL_MS,
                        waiting.giveBackWakeMode(),
                        ANY_TOKEN);
            }
        });
    }

    /**
     * One quorum acquisition of {@code request}'s grant (see the class comment): a grant of {@code request.kind()},
     * a Busy when the store refused, or an exception when too few nodes answered.
     */
    AcquireResult acquire(String op, AcquireRequest request, QuorumSteps steps) {
        String name = request.name();
        long leaseNanos = request.lease().toNanos();
        int quorum = connection.quorum();
        long start = System.nanoTime();
        long validUntil = start + leaseNanos;
        NodeRound.Replies<AcquireReply> replies =
                connection.round(connection.nodes(), steps.acquire(), start + connection.timeoutNanos());
        String failure;
        if (replies.count(AcquireReply::granted) >= quorum) {
            long token = Long.MIN_VALUE;
            for (int i = 0; i < replies.size(); i++) {
                if (replies.ok(i) && replies.value(i).granted()) {
                    token = Math.max(token, replies.value(i).token());
                }
            }
            failure = raiseFence(steps, token, replies);
            if (failure == null && System.nanoTime() - validUntil < 0) {
                return new Grant(name, request.owner(), token, validUntil, steps.grantState(token), request.kind());
            }
            if (failure == null) {
                failure = "the quorum was reached after " + NodeRound.millis(System.nanoTime() - start)
                        + " ms, past the validity of the lease " + request.lease();
            }
        } else {
            failure = null;
        }
        releaseAfterFailure(steps, replies);
        if (failure == null) {
            Busy busy = busy(replies);
            if (busy != null) {
                return busy;
            }
            failure = errors.summary(replies, quorum + " grants needed");
        }
        throw errors.unavailable(op, name, failure, replies);
    }

    /**
     * Redlock fencing: every node that granted and lags gets the maximum, also when the others already make a quorum
     * at it; null when a quorum holds the maximum, else why not. A granted node left below the token refuses the
     * release's token check (RELEASE), so its key stood until the lease ended: it was busy for every later attempt,
     * each of which then needed both other nodes, and its counter, which grants elsewhere passed, lagged again at the
     * next grant. The contended Redlock benchmark fell into that in about one run in three, at a twentieth of its
     * rate, for as long as it ran.
     */
    private String raiseFence(QuorumSteps steps, long token, NodeRound.Replies<AcquireReply> replies) {
        int quorum = connection.quorum();
        List<RedisNode> lagging = new ArrayList<>();
        int atMax = 0;
        for (int i = 0; i < replies.size(); i++) {
            if (replies.ok(i) && replies.value(i).granted()) {
                if (replies.value(i).token() == token) {
                    atMax++;
                } else {
                    lagging.add(connection.nodes().get(i));
                }
            }
        }
        if (lagging.isEmpty()) {
            return null; // every node that granted has the maximum
        }
        int needed = Math.max(0, quorum - atMax);
        NodeRound.Replies<Boolean> raised =
                connection.round(lagging, n -> steps.raise(n, token), System.nanoTime() + connection.timeoutNanos());
        if (raised.count(Boolean::booleanValue) >= needed) {
            return null;
        }
        return "the fencing token " + token + " could not be written back to a quorum: "
                + errors.summary(raised, needed + " more needed");
    }

    /**
     * Gives back what a failed attempt may hold. Redlock: on every node that granted, failed or did not
     * answer, so that no minority is left blocking the next quorum. One node: only a grant it refuses (too
     * late); after an error the core retries with the same owner id and recognises a grant the server made.
     */
    private void releaseAfterFailure(QuorumSteps steps, NodeRound.Replies<AcquireReply> replies) {
        List<RedisNode> maybeHeld = new ArrayList<>();
        for (int i = 0; i < replies.size(); i++) {
            if ((!replies.ok(i) && connection.redlock())
                    || (replies.ok(i) && replies.value(i).granted())) {
                maybeHeld.add(connection.nodes().get(i));
            }
        }
        if (maybeHeld.isEmpty()) {
            return;
        }
        NodeRound.Replies<Boolean> released = connection.round(
                maybeHeld,
                n -> {
                    steps.giveBack(n);
                    return true;
                },
                System.nanoTime() + connection.timeoutNanos());
        if (released.failures() > 0 && log.isDebugEnabled()) {
            log.debug(
                    "Could not release a failed attempt on every node of {}: {}; it expires by its lease",
                    connection.description(),
                    errors.summary(released, "cleanup"));
        }
    }

    private static Busy busy(NodeRound.Replies<AcquireReply> replies) {
        Map<String, Integer> votes = new HashMap<>();
        AcquireReply best = null;
        int bestVotes = 0;
        for (int i = 0; i < replies.size(); i++) {
            if (replies.ok(i) && !replies.value(i).granted()) {
                AcquireReply r = replies.value(i);
                int v = votes.merge(String.valueOf(r.holder()), 1, Integer::sum);
                if (v > bestVotes || (v == bestVotes && best != null && r.pttl() < best.pttl())) {
                    best = r;
                    bestVotes = v;
                }
            }
        }
        if (best == null) {
            return null;
        }
        Duration retryAfter = best.pttl() > 0 ? Duration.ofMillis(best.pttl()) : null;
        return new Busy(best.holder(), best.token(), retryAfter);
    }

    /** Compare-and-delete on every node (waking one waiter); true with a quorum of releases. */
    boolean release(Grant grant) {
        GrantBytes b = GrantBytes.of(grant, keys);
        RedisKeys.NameKeys k = b.keys;
        byte[] wakeMode = waiting.releaseWakeMode();
        return release(
                grant.name(),
                new ScriptCall<>(
                        RedisScripts.RELEASE,
                        4,
                        RedisScripts::asLong,
                        k.lock(),
                        k.wake(),
                        k.waiting(),
                        k.fence(),
                        b.owner,
                        RedisWaiting.WAKE_TTL_MS,
                        wakeMode,
                        b.token));
    }

    /**
     * {@code release} (1: released, else not held) on every node: true with a quorum of releases, false when so
     * many nodes did not hold it that no quorum could have, else an exception.
     */
    boolean release(String name, ScriptCall<Long> release) {
        int quorum = connection.quorum();
        NodeRound.Replies<Long> replies =
                connection.round(connection.nodes(), release, System.nanoTime() + connection.timeoutNanos());
        if (replies.count(v -> v == 1) >= quorum) {
            return true;
        }
        if (replies.count(v -> v != 1) > connection.nodes().size() - quorum) {
            return false;
        }
        throw errors.unavailable("release", name, errors.summary(replies, quorum + " releases needed"), replies);
    }
}

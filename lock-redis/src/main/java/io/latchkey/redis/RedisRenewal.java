package io.latchkey.redis;

import static io.latchkey.redis.RedisScripts.asLong;
import static io.latchkey.redis.RedisScripts.bytes;
import static io.latchkey.redis.RedisScripts.utf8;

import io.latchkey.LockLoss;
import io.latchkey.spi.Grant;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/*
 * Renewal: compare-and-pexpire (RedisScripts.RENEW) on every node; the grant stands with a quorum of
 * renewals within the new lease's validity. Unlike acquire and release, a renewal returns as soon as a
 * quorum has renewed (or so many refused that no quorum can): a slow node must not eat into the lease.
 * A refusal from nodes whose fence counter is gone too means the store lost its data (a restart without
 * persistence, FLUSHALL), reported as RENEWAL_FAILED rather than as a plain "not held". Read-write grants are
 * renewed by the same rounds with their own script (RedisReadWrite).
 *
 * Concurrency design. Stateless apart from final fields, so thread-safe; the core calls it from its
 * renewal scheduler, and each round's replies are a snapshot (NodeRound).
 */
final class RedisRenewal {
    private final RedisConnection connection;
    private final RedisKeys keys;
    private final RedisGrants grants;

    RedisRenewal(RedisConnection connection, RedisKeys keys, RedisGrants grants) {
        this.connection = connection;
        this.keys = keys;
        this.grants = grants;
    }

    RenewResult renew(Grant grant, Duration lease) {
        GrantBytes b = GrantBytes.of(grant, keys);
        byte[] ttlMs = grants.storeTtlArgument(lease);
        return renew(
                grant.name(),
                lease,
                node -> asLong(
                        node.eval(RedisScripts.RENEW, 2, b.keys.lock(), b.keys.fence(), b.owner, ttlMs, b.token)));
    }

    /**
     * RENEW_MANY on every node, one call each, until every grant is decided (a quorum renewed it, or so many refused
     * that none can), each grant judged as {@link #renew(String, Duration, Function)} judges one. A grant still
     * undecided when the round ends (too few nodes answered for it: a grant a node missed when it was acquired, with
     * another node down now), or renewed only after its new validity, is answered null, an outage for that grant
     * alone; a round no node answered is an outage for the batch.
     */
    java.util.List<@Nullable RenewResult> renewAll(java.util.List<Grant> batch, java.util.List<Duration> leases) {
        int size = batch.size();
        byte[][] params = new byte[5 * size][];
        for (int i = 0; i < size; i++) {
            Grant g = batch.get(i);
            GrantBytes b = GrantBytes.of(g, keys);
            params[2 * i] = b.keys.lock();
            params[2 * i + 1] = b.keys.fence();
            params[2 * size + 3 * i] = b.owner;
            params[2 * size + 3 * i + 1] = grants.storeTtlArgument(leases.get(i));
            params[2 * size + 3 * i + 2] = b.token;
        }
        int n = connection.nodes().size();
        int quorum = connection.quorum();
        long start = System.nanoTime();
        NodeRound.Replies<java.util.List<Long>> replies = connection.round(
                connection.nodes(),
                node -> answers(node.eval(RedisScripts.RENEW_MANY, 2 * size, params), size),
                start + connection.timeoutNanos(),
                r -> allDecided(r, size, n, quorum));
        if (replies.failures() == n) { // no node answered: the store could not be asked at all
            RedisErrors errors = connection.errors();
            throw errors.unavailable(
                    "renew",
                    batch.get(0).name(),
                    "renewing " + size + " locks in one batch: " + errors.summary(replies, quorum + " answers needed"),
                    replies);
        }
        java.util.List<@Nullable RenewResult> out = new java.util.ArrayList<>(size);
        long now = System.nanoTime();
        for (int i = 0; i < size; i++) {
            // counted in one pass over the nodes, no predicate per grant: a batch holds up to RENEWAL_BATCH grants
            int renewed = 0;
            int gone = 0;
            int dataLost = 0;
            for (int k = 0; k < n; k++) {
                if (replies.ok(k)) {
                    long v = replies.value(k).get(i);
                    if (v == 1) {
                        renewed++;
                    } else {
                        gone++;
                        if (v == -1) {
                            dataLost++;
                        }
                    }
                }
            }
            if (renewed >= quorum) {
                // renewed, unless the quorum's answers came after the new lease's validity: then undecided
                long validUntil = start + leases.get(i).toNanos();
                out.add(now - validUntil < 0 ? RenewResult.renewed(validUntil) : null);
            } else if (gone > n - quorum) {
                out.add(refused(gone, dataLost));
            } else {
                out.add(null); // too few nodes answered for this grant: an outage for it alone, retried by the core
            }
        }
        return out;
    }

    /**
     * A renewal too many nodes refused: not held, and reported as RENEWAL_FAILED when every refusal found the fence
     * counter gone too (the store lost its data), so that a holder learns why.
     */
    private static RenewResult refused(long refusals, long withDataLost) {
        return withDataLost == refusals ? RenewResult.notHeld(LockLoss.Reason.RENEWAL_FAILED) : RenewResult.notHeld();
    }

    /** A node's reply to RENEW_MANY: one number per grant, checked and then used as it came (no copy). */
    @SuppressWarnings("unchecked") // every element was just checked to be a Long
    private static java.util.List<Long> answers(Object reply, int size) {
        if (!(reply instanceof java.util.List<?> list) || list.size() != size) {
            throw new IllegalStateException("renew-many answered " + reply + " for " + size + " grants");
        }
        for (int i = 0; i < size; i++) {
            asLong(list.get(i));
        }
        return (java.util.List<Long>) list;
    }

    /** Whether each grant has a quorum of renewals or of refusals; counted without a predicate per grant. */
    private static boolean allDecided(NodeRound.Replies<java.util.List<Long>> r, int size, int n, int quorum) {
        for (int i = 0; i < size; i++) {
            int renewed = 0;
            int refused = 0;
            for (int k = 0; k < n; k++) {
                if (r.ok(k)) {
                    if (r.value(k).get(i) == 1) {
                        renewed++;
                    } else {
                        refused++;
                    }
                }
            }
            if (renewed < quorum && refused <= n - quorum) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code renew} (1: renewed, 0: not held, -1: not held and the store lost its data) on every node, until a
     * quorum renewed or so many refused that none can.
     */
    RenewResult renew(String name, Duration lease, Function<RedisNode, Long> renew) {
        int n = connection.nodes().size();
        int quorum = connection.quorum();
        long start = System.nanoTime();
        NodeRound.Replies<Long> replies = connection.round(
                connection.nodes(),
                renew,
                start + connection.timeoutNanos(),
                r -> r.count(v -> v == 1) >= quorum || r.count(v -> v != 1) > n - quorum);
        long validUntil = start + lease.toNanos();
        RedisErrors errors = connection.errors();
        if (replies.count(v -> v == 1) >= quorum) {
            if (System.nanoTime() - validUntil < 0) {
                return RenewResult.renewed(validUntil);
            }
            throw errors.unavailable(
                    "renew",
                    name,
                    "the quorum renewed after " + NodeRound.millis(System.nanoTime() - start)
                            + " ms, past the validity of the lease " + lease,
                    null,
                    null);
        }
        long gone = replies.count(v -> v != 1);
        if (gone > n - quorum) {
            return refused(gone, replies.count(v -> v == -1));
        }
        throw errors.unavailable("renew", name, errors.summary(replies, quorum + " renewals needed"), replies);
    }
}

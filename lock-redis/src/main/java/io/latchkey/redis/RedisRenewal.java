package io.latchkey.redis;

import static io.latchkey.redis.RedisScripts.asLong;

import io.latchkey.LockLoss;
import io.latchkey.spi.Grant;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    /** RENEW_MANY's answers: renewed; not held by the owner with this token; not held and the fence gone too. */
    private static final byte RENEWED = '1';

    private static final byte NOT_HELD = '0';
    private static final byte DATA_LOST = '-';

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
     * RENEW_MANY on every node, one call each per lease the batch asks for (almost always one: the grants of a client
     * mostly share their lock options), until every grant is decided (a quorum renewed it, or so many refused that
     * none can), each grant judged as {@link #renew(String, Duration, Function)} judges one. A grant still undecided
     * when the round ends (too few nodes answered for it: a grant a node missed when it was acquired, with another
     * node down now), or renewed only after its new validity, is answered null, an outage for that grant alone; a
     * round no node answered is an outage for the batch.
     */
    List<@Nullable RenewResult> renewAll(List<Grant> batch, List<Duration> leases) {
        Duration lease = leases.get(0);
        int size = batch.size();
        int other = 1;
        while (other < size && leases.get(other).equals(lease)) {
            other++;
        }
        if (other == size) {
            return java.util.Arrays.asList(renewWithOneLease(batch, lease));
        }
        // leases differ (other lock options, or a lease cut to maxHold): one round per lease, each grant answered in
        // its place
        Map<Duration, List<Integer>> byLease = new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
            byLease.computeIfAbsent(leases.get(i), l -> new ArrayList<>()).add(i);
        }
        @Nullable RenewResult[] out = new RenewResult[size];
        for (Map.Entry<Duration, List<Integer>> group : byLease.entrySet()) {
            List<Integer> at = group.getValue();
            List<Grant> grantsOfLease = new ArrayList<>(at.size());
            for (int i : at) {
                grantsOfLease.add(batch.get(i));
            }
            @Nullable RenewResult[] answered = renewWithOneLease(grantsOfLease, group.getKey());
            for (int j = 0; j < answered.length; j++) {
                out[at.get(j)] = answered[j];
            }
        }
        return java.util.Arrays.asList(out);
    }

    /** One RENEW_MANY round for grants that all ask for {@code lease}: see {@link #renewAll(List, List)}. */
    private @Nullable RenewResult[] renewWithOneLease(List<Grant> batch, Duration lease) {
        int size = batch.size();
        // KEYS: lock and fence of each grant; ARGV: the lease, then owner and token of each grant
        byte[][] params = new byte[4 * size + 1][];
        params[2 * size] = grants.storeTtlArgument(lease);
        for (int i = 0; i < size; i++) {
            GrantBytes b = GrantBytes.of(batch.get(i), keys);
            params[2 * i] = b.keys.lock();
            params[2 * i + 1] = b.keys.fence();
            params[2 * size + 1 + 2 * i] = b.owner;
            params[2 * size + 2 + 2 * i] = b.token;
        }
        int n = connection.nodes().size();
        int quorum = connection.quorum();
        long start = System.nanoTime();
        NodeRound.Replies<byte[]> replies = connection.round(
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
        @Nullable RenewResult[] out = new RenewResult[size];
        long validUntil = start + lease.toNanos();
        boolean inTime = System.nanoTime() - validUntil < 0;
        for (int i = 0; i < size; i++) {
            // counted in one pass over the nodes, no predicate per grant: a batch holds up to RENEWAL_BATCH grants
            int renewed = 0;
            int gone = 0;
            int dataLost = 0;
            for (int k = 0; k < n; k++) {
                if (replies.ok(k)) {
                    byte v = replies.value(k)[i];
                    if (v == RENEWED) {
                        renewed++;
                    } else {
                        gone++;
                        if (v == DATA_LOST) {
                            dataLost++;
                        }
                    }
                }
            }
            if (renewed >= quorum) {
                // renewed, unless the quorum's answers came after the new lease's validity: then undecided
                out[i] = inTime ? RenewResult.renewed(validUntil) : null;
            } else if (gone > n - quorum) {
                out[i] = refused(gone, dataLost);
            } else {
                out[i] = null; // too few nodes answered for this grant: an outage for it alone, retried by the core
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

    /** A node's reply to RENEW_MANY: one character per grant, checked and then used as it came (no copy). */
    private static byte[] answers(Object reply, int size) {
        if (!(reply instanceof byte[] answers) || answers.length != size) {
            throw new IllegalStateException("renew-many answered "
                    + (reply instanceof byte[] b ? "'" + ascii(b) + "'" : String.valueOf(reply)) + " for " + size
                    + " grants");
        }
        for (byte a : answers) {
            if (a != RENEWED && a != NOT_HELD && a != DATA_LOST) {
                throw new IllegalStateException(
                        "renew-many answered '" + ascii(answers) + "' for " + size + " grants: only 1, 0 and - expected");
            }
        }
        return answers;
    }

    private static String ascii(byte[] reply) {
        return new String(reply, java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Whether each grant has a quorum of renewals or of refusals; counted without a predicate per grant. */
    private static boolean allDecided(NodeRound.Replies<byte[]> r, int size, int n, int quorum) {
        for (int i = 0; i < size; i++) {
            int renewed = 0;
            int refused = 0;
            for (int k = 0; k < n; k++) {
                if (r.ok(k)) {
                    if (r.value(k)[i] == RENEWED) {
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

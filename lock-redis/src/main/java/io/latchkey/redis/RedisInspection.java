package io.latchkey.redis;

import static io.latchkey.redis.RedisScripts.asLong;

import io.latchkey.LockInfo;
import io.latchkey.redis.RedisScripts.InspectReply;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/*
 * What operators see and do: inspect (a name is held when a quorum of nodes names the same owner; the
 * token is the one most of them report, the expiry the time the quorum still has it), list (SCAN on every
 * node, then inspect per name) and force-release (whoever holds it, on every node, waking one waiter).
 *
 * Concurrency design. Stateless apart from final fields, so thread-safe; reads are snapshots and may be
 * stale by the time they return, as the SPI allows.
 */
final class RedisInspection {
    private final RedisConnection connection;
    private final RedisKeys keys;
    private final RedisErrors errors;

    RedisInspection(RedisConnection connection, RedisKeys keys) {
        this.connection = connection;
        this.keys = keys;
        this.errors = connection.errors();
    }

    Optional<LockInfo> inspect(String name) {
        RedisKeys.NameKeys k = keys.of(name);
        int quorum = connection.quorum();
        NodeRound.Replies<InspectReply> replies = connection.round(
                connection.nodes(),
                n -> InspectReply.parse(n.eval(RedisScripts.INSPECT, 2, k.lock(), k.fence())),
                System.nanoTime() + connection.timeoutNanos());
        Map<String, List<InspectReply>> byOwner = new HashMap<>();
        for (int i = 0; i < replies.size(); i++) {
            if (replies.ok(i) && replies.value(i).owner() != null) {
                byOwner.computeIfAbsent(replies.value(i).owner(), o -> new ArrayList<>())
                        .add(replies.value(i));
            }
        }
        int most = 0;
        for (Map.Entry<String, List<InspectReply>> e : byOwner.entrySet()) {
            List<InspectReply> held = e.getValue();
            most = Math.max(most, held.size());
            if (held.size() >= quorum) {
                return Optional.of(info(name, e.getKey(), held));
            }
        }
        if (replies.failures() > 0 && most + replies.failures() >= quorum) {
            throw errors.unavailable("inspect", name, errors.summary(replies, "a quorum of answers needed"), replies);
        }
        return Optional.empty();
    }

    private LockInfo info(String name, String owner, List<InspectReply> held) {
        Map<Long, Integer> tokenVotes = new HashMap<>();
        long token = -1;
        int votes = 0;
        for (InspectReply r : held) {
            int v = tokenVotes.merge(r.token(), 1, Integer::sum);
            if (v > votes || (v == votes && r.token() > token)) {
                token = r.token();
                votes = v;
            }
        }
        List<Long> ttls = new ArrayList<>();
        held.forEach(r -> ttls.add(r.pttl()));
        ttls.sort(Collections.reverseOrder());
        long quorumTtl = ttls.get(connection.quorum() - 1); // the grant stands while a quorum still has it
        Optional<Instant> expires =
                quorumTtl >= 0 ? Optional.of(Instant.now().plusMillis(quorumTtl)) : Optional.empty();
        return new LockInfo(name, owner, token, Optional.empty(), expires);
    }

    List<LockInfo> list(String prefix) {
        String pattern = keys.lockPattern(prefix);
        NodeRound.Replies<List<byte[]>> scans = connection.round(
                connection.nodes(),
                n -> n.scan(pattern),
                System.nanoTime() + Math.max(connection.timeoutNanos(), TimeUnit.SECONDS.toNanos(30)));
        if (scans.failures() >= connection.quorum() || (!connection.redlock() && scans.failures() > 0)) {
            throw errors.unavailable("list", null, errors.summary(scans, "answers needed"), scans);
        }
        TreeSet<String> names = new TreeSet<>();
        for (int i = 0; i < scans.size(); i++) {
            if (scans.ok(i)) {
                for (byte[] key : scans.value(i)) {
                    keys.nameOfLockKey(key).filter(n -> n.startsWith(prefix)).ifPresent(names::add);
                }
            }
        }
        List<LockInfo> out = new ArrayList<>();
        for (String name : names) {
            inspect(name).ifPresent(out::add);
        }
        return out;
    }

    boolean forceRelease(String name) {
        RedisKeys.NameKeys k = keys.of(name);
        NodeRound.Replies<Long> replies = connection.round(
                connection.nodes(),
                n -> asLong(n.eval(
                        RedisScripts.FORCE_RELEASE, 3, k.lock(), k.wake(), k.waiting(), RedisWaiting.WAKE_TTL_MS)),
                System.nanoTime() + connection.timeoutNanos());
        if (replies.count(v -> v == 1) > 0) {
            return true;
        }
        if (replies.failures() > 0) {
            throw errors.unavailable("force-release", name, errors.summary(replies, "every node needed"), replies);
        }
        return false;
    }
}

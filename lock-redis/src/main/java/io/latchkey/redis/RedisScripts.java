package io.latchkey.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import redis.clients.jedis.exceptions.JedisException;

/*
 * The lock protocol, one atomic script per operation (Redis runs a script without interleaving other
 * commands, and with the clock frozen at the script's start). Keys: see RedisKeys. The lock key's value
 * is the owner id, which the core keeps for every attempt of one acquisition, so a retried acquire
 * recognises its own grant. Ownership checks compare the owner id, which is unique per acquisition.
 * Also here: the arguments' encoding and the parsing of the scripts' replies. Stateless.
 */
final class RedisScripts {
    private RedisScripts() {}

    /**
     * KEYS: lock, fence, waiting. ARGV: owner, lease ms.
     * Granted: the token, a bare integer (an array reply costs the server about a microsecond more to build, and
     * this is every acquisition's reply). Own grant found (a retry): lease reset, the current token.
     * Busy: flags that someone waits (until the holder's lease ends, plus 1 s), and answers
     * {0, holder's token or -1, holder's remaining ms, holder's owner id}.
     */
    static final LuaScript ACQUIRE = new LuaScript("acquire", """
            if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
              return redis.call('INCR', KEYS[2])
            end
            local holder = redis.call('GET', KEYS[1])
            if holder == ARGV[1] then
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
              return tonumber(redis.call('GET', KEYS[2]) or '0')
            end
            local ttl = redis.call('PTTL', KEYS[1])
            redis.call('SET', KEYS[3], '1', 'PX', math.max(ttl, 0) + 1000)
            return {0, tonumber(redis.call('GET', KEYS[2]) or '-1'), ttl, holder}
            """);

    /**
     * Redlock fence write-back. KEYS: lock, fence. ARGV: owner, token.
     * Raises the counter to the token if this node still holds the owner's grant: 1; else 0.
     */
    static final LuaScript RAISE_FENCE = new LuaScript("raise-fence", """
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then
              return 0
            end
            if tonumber(redis.call('GET', KEYS[2]) or '0') < tonumber(ARGV[2]) then
              redis.call('SET', KEYS[2], ARGV[2])
            end
            return 1
            """);

    /**
     * Compare-and-pexpire. KEYS: lock, fence. ARGV: owner, lease ms, token.
     * 1 renewed; 0 not held by the owner with this token; -1 not held and the fence counter is gone too (the server
     * lost its data: a restart without persistence, or FLUSHALL). The token is the fence counter's value while the
     * grant stands (no grant is made while the key is held, and Redlock raises the counter to the grant's token):
     * an owner's stale grant never renews its newer one.
     */
    static final LuaScript RENEW = new LuaScript("renew", """
            local holder = redis.call('GET', KEYS[1])
            if holder == ARGV[1] and redis.call('GET', KEYS[2]) == ARGV[3] then
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
              return 1
            end
            if not holder and redis.call('EXISTS', KEYS[2]) == 0 then
              return -1
            end
            return 0
            """);

    /**
     * RENEW for many grants with one lease, in one call: KEYS lock and fence of each grant in turn; ARGV the lease ms,
     * then owner and token of each grant in turn. Answers one character per grant, in order, as RENEW's 1, 0 and -1:
     * '1' renewed, '0' not held by the owner with this token, '-' not held and the fence counter gone too. One
     * character a grant, not an array of integers, and the lease once, not once a grant: a batch of 128 grants is then
     * 513 parameters and a 128-byte reply (ten thousand held locks renew in some eighty calls a second, and sending,
     * framing and reading these calls is about two thirds of what the client spends on renewal). Only where every key
     * lives on one server (a single node, Sentinel's master, each Redlock node); never on a cluster, whose names lie
     * in different slots.
     */
    static final LuaScript RENEW_MANY = new LuaScript("renew-many", """
            local out = {}
            local lease = ARGV[1]
            for i = 1, #KEYS / 2 do
              local lock, fence = KEYS[2 * i - 1], KEYS[2 * i]
              local holder = redis.call('GET', lock)
              if holder == ARGV[2 * i] and redis.call('GET', fence) == ARGV[2 * i + 1] then
                redis.call('PEXPIRE', lock, lease)
                out[i] = '1'
              elseif not holder and redis.call('EXISTS', fence) == 0 then
                out[i] = '-'
              else
                out[i] = '0'
              end
            end
            return table.concat(out)
            """);

    /**
     * Compare-and-delete, then wake one waiter if someone waits. KEYS: lock, wake, waiting, fence.
     * ARGV: owner, wake-list ttl ms, '1' to wake even if this node did not hold the grant (Redlock: a waiter
     * blocks on one node, which may not have been part of the holder's quorum), '2' for a failed Redlock attempt's
     * give-back (its owner waits next, maybe on this node, which its own grant kept from being flagged as waited on
     * by the acquire script: the flag is set here, so that the holder's release pushes a wake here too), else '0',
     * and the grant's token
     * (as RENEW: an owner's stale grant never releases its newer one), or '' for a failed attempt's give-back,
     * which has no token.
     * The wake list holds at most one element: one release wakes one BLPOP waiter (Redis serves the
     * longest-blocked client first). 1 released; 0 not held by the owner.
     */
    static final LuaScript RELEASE = new LuaScript("release", """
            local released = 0
            if redis.call('GET', KEYS[1]) == ARGV[1] and (ARGV[4] == '' or redis.call('GET', KEYS[4]) == ARGV[4]) then
              redis.call('DEL', KEYS[1])
              released = 1
            end
            if (released == 1 or ARGV[3] == '1') and redis.call('EXISTS', KEYS[3]) == 1 then
              redis.call('LPUSH', KEYS[2], '1')
              redis.call('LTRIM', KEYS[2], 0, 0)
              redis.call('PEXPIRE', KEYS[2], ARGV[2])
            end
            if ARGV[3] == '2' then
              redis.call('SET', KEYS[3], '1', 'PX', ARGV[2])
            end
            return released
            """);

    /** Operator's release, whoever holds it. KEYS: lock, wake, waiting. ARGV: wake-list ttl ms. 1 removed; 0 none. */
    static final LuaScript FORCE_RELEASE = new LuaScript("force-release", """
            if redis.call('DEL', KEYS[1]) == 1 then
              if redis.call('EXISTS', KEYS[3]) == 1 then
                redis.call('LPUSH', KEYS[2], '1')
                redis.call('LTRIM', KEYS[2], 0, 0)
                redis.call('PEXPIRE', KEYS[2], ARGV[1])
              end
              return 1
            end
            return 0
            """);

    /** KEYS: lock, fence. {owner or false, token or -1, remaining ms}. */
    static final LuaScript INSPECT = new LuaScript("inspect", """
            return {redis.call('GET', KEYS[1]), tonumber(redis.call('GET', KEYS[2]) or '-1'), redis.call('PTTL', KEYS[1])}
            """);

    // ------------------------------------------------------------------ semaphores (single node only)
    //
    // KEYS[1] the semaphore's state hash: 'limit' (its permit count, set by the first grant and kept, as the fence),
    // 'fence' (the token counter), 'used' (permits of the holders listed), and 'o:<owner>' = '<permits>:<token>' per
    // holder. KEYS[2] a sorted set owner -> expiry in server ms. Time is the server's (TIME); Redis replicates a
    // script's effects, so reading TIME before writing is safe.

    /** Lua prelude: `now` in server ms; holders whose expiry has passed are dropped and their permits freed. */
    private static final String SEM_NOW_AND_DROP_EXPIRED = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local dead = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
            for _, o in ipairs(dead) do
              local held = redis.call('HGET', KEYS[1], 'o:' .. o)
              if held then
                redis.call('HINCRBY', KEYS[1], 'used', -tonumber(string.match(held, '^(%d+)')))
                redis.call('HDEL', KEYS[1], 'o:' .. o)
              end
            end
            if #dead > 0 then
              redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
            end
            """;

    /**
     * KEYS: state, expiries, waiting. ARGV: owner, ttl ms, permits, limit.
     * Granted: {1, token}. Own grant found (a retry): expiry reset, {1, its token}. Another count stored:
     * {-1, stored count}, nothing changed. Not enough free: flags that someone waits, {0, ms until the first
     * holder's expiry or -1}.
     */
    static final LuaScript SEM_ACQUIRE = new LuaScript("semaphore-acquire", """
            local limit = redis.call('HGET', KEYS[1], 'limit')
            if limit and limit ~= ARGV[4] then
              return {-1, tonumber(limit)}
            end
            """ + SEM_NOW_AND_DROP_EXPIRED + """
            local mine = redis.call('HGET', KEYS[1], 'o:' .. ARGV[1])
            if mine then
              redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
              return {1, tonumber(string.match(mine, ':(%d+)$'))}
            end
            local used = tonumber(redis.call('HGET', KEYS[1], 'used') or '0')
            if used + tonumber(ARGV[3]) > tonumber(ARGV[4]) then
              local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
              local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
              local untilLast = 0
              if last[2] then untilLast = tonumber(last[2]) - now end
              redis.call('SET', KEYS[3], '1', 'PX', math.max(untilLast, 0) + 1000)
              if first[2] then return {0, tonumber(first[2]) - now} end
              return {0, -1}
            end
            redis.call('HSET', KEYS[1], 'limit', ARGV[4])
            local token = redis.call('HINCRBY', KEYS[1], 'fence', 1)
            redis.call('HINCRBY', KEYS[1], 'used', tonumber(ARGV[3]))
            redis.call('HSET', KEYS[1], 'o:' .. ARGV[1], ARGV[3] .. ':' .. token)
            redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
            return {1, token}
            """);

    /** KEYS: state, expiries. ARGV: owner, token, ttl ms. 1 renewed; 0 this grant is gone or expired. */
    static final LuaScript SEM_RENEW = new LuaScript("semaphore-renew", SEM_NOW_AND_DROP_EXPIRED + """
            local held = redis.call('HGET', KEYS[1], 'o:' .. ARGV[1])
            if not held or string.match(held, ':(%d+)$') ~= ARGV[2] then
              return 0
            end
            redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
            return 1
            """);

    /**
     * KEYS: state, expiries, wake, waiting. ARGV: owner, token, wake-list ttl ms.
     * 1 released; 0 this grant was gone or had expired. A release wakes one waiter if someone waits.
     */
    static final LuaScript SEM_RELEASE = new LuaScript("semaphore-release", SEM_NOW_AND_DROP_EXPIRED + """
            local held = redis.call('HGET', KEYS[1], 'o:' .. ARGV[1])
            if not held or string.match(held, ':(%d+)$') ~= ARGV[2] then
              return 0
            end
            redis.call('HDEL', KEYS[1], 'o:' .. ARGV[1])
            redis.call('ZREM', KEYS[2], ARGV[1])
            redis.call('HINCRBY', KEYS[1], 'used', -tonumber(string.match(held, '^(%d+)')))
            if redis.call('EXISTS', KEYS[4]) == 1 then
              redis.call('LPUSH', KEYS[3], '1')
              redis.call('LTRIM', KEYS[3], 0, 0)
              redis.call('PEXPIRE', KEYS[3], ARGV[3])
            end
            return 1
            """);

    /** KEYS: state, expiries. ARGV: limit. {1, free permits}; another count stored: {-1, stored count}. */
    static final LuaScript SEM_AVAILABLE = new LuaScript("semaphore-available", """
            local limit = redis.call('HGET', KEYS[1], 'limit')
            if limit and limit ~= ARGV[1] then
              return {-1, tonumber(limit)}
            end
            """ + SEM_NOW_AND_DROP_EXPIRED + """
            return {1, tonumber(ARGV[1]) - tonumber(redis.call('HGET', KEYS[1], 'used') or '0')}
            """);

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] bytes(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    static long asLong(Object reply) {
        if (reply instanceof Long l) {
            return l;
        }
        throw new JedisException("unexpected reply from a lock script: " + reply);
    }

    /** One node's answer to the acquire script. */
    record AcquireReply(boolean granted, long token, long pttl, String holder) {
        /**
         * A granted acquire answers its token as a bare integer (ACQUIRE) or as {1, token} (the other acquire scripts);
         * a busy one {0, holder's token, holder's remaining ms, holder's owner id}.
         */
        static AcquireReply parse(Object reply) {
            if (reply instanceof Long token) {
                return new AcquireReply(true, token, -1, null);
            }
            List<?> r = (List<?>) reply;
            if (asLong(r.get(0)) == 1) {
                return new AcquireReply(true, asLong(r.get(1)), -1, null);
            }
            Object holder = r.size() > 3 ? r.get(3) : null;
            return new AcquireReply(
                    false,
                    asLong(r.get(1)),
                    asLong(r.get(2)),
                    holder instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : null);
        }
    }

    /** One node's answer to the inspect script. */
    record InspectReply(String owner, long token, long pttl) {
        static InspectReply parse(Object reply) {
            List<?> r = (List<?>) reply;
            Object owner = r.get(0);
            return new InspectReply(
                    owner instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : null,
                    asLong(r.get(1)),
                    asLong(r.get(2)));
        }
    }
}

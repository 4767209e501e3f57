package io.latchkey.redis;

/**
 * The Lua scripts of read-write locks, on one node or on each node of a Redlock quorum (RedisReadWrite).
 *
 * KEYS[1] the lock's state hash: 'fence' (token counter, shared by both sides, never deleted), 'w' / 'wt' /
 * 'we' (the writer's owner, token and expiry in server ms), 'r:<owner>' = token per reader. KEYS[2] a sorted set
 * reader -> expiry. KEYS[3] a sorted set of waiting writers (intents) -> expiry: while one lives, new readers
 * wait (writer preference).
 */
final class ReadWriteScripts {
    /** Lua prelude: `now` in server ms; expired readers, intents and writer dropped. */
    private static final String NOW_AND_DROP_EXPIRED = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local dead = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
            for _, o in ipairs(dead) do
              redis.call('HDEL', KEYS[1], 'r:' .. o)
            end
            if #dead > 0 then
              redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
            end
            redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
            local w = redis.call('HGET', KEYS[1], 'w')
            if w and tonumber(redis.call('HGET', KEYS[1], 'we') or '0') <= now then
              redis.call('HDEL', KEYS[1], 'w', 'wt', 'we')
              w = false
            end
            """;

    /**
     * KEYS: state, reader expiries, intents, waiting. ARGV: owner, ttl ms, 'r' or 'w'.
     * Granted: {1, token}; own grant found (a retry): expiry reset, {1, its token}; busy: {0} (a writer also
     * records its intent until ttl).
     */
    static final LuaScript ACQUIRE = new LuaScript("read-write-acquire", NOW_AND_DROP_EXPIRED + """
            local ttl = tonumber(ARGV[2])
            if ARGV[3] == 'r' then
              local mine = redis.call('HGET', KEYS[1], 'r:' .. ARGV[1])
              if mine then
                redis.call('ZADD', KEYS[2], now + ttl, ARGV[1])
                return {1, tonumber(mine)}
              end
              if w or redis.call('ZCARD', KEYS[3]) > 0 then
                redis.call('SET', KEYS[4], '1', 'PX', ttl + 1000)
                return {0}
              end
              local token = redis.call('HINCRBY', KEYS[1], 'fence', 1)
              redis.call('HSET', KEYS[1], 'r:' .. ARGV[1], token)
              redis.call('ZADD', KEYS[2], now + ttl, ARGV[1])
              return {1, token}
            end
            if w == ARGV[1] then
              redis.call('HSET', KEYS[1], 'we', now + ttl)
              return {1, tonumber(redis.call('HGET', KEYS[1], 'wt'))}
            end
            if w or redis.call('ZCARD', KEYS[2]) > 0 then
              redis.call('ZADD', KEYS[3], now + ttl, ARGV[1])
              redis.call('SET', KEYS[4], '1', 'PX', ttl + 1000)
              return {0}
            end
            redis.call('ZREM', KEYS[3], ARGV[1])
            local token = redis.call('HINCRBY', KEYS[1], 'fence', 1)
            redis.call('HSET', KEYS[1], 'w', ARGV[1], 'wt', token, 'we', now + ttl)
            return {1, token}
            """);

    /** KEYS: state, reader expiries, intents. ARGV: owner, token, ttl ms, 'r' or 'w'. 1 renewed; 0 gone. */
    static final LuaScript RENEW = new LuaScript("read-write-renew", NOW_AND_DROP_EXPIRED + """
            if ARGV[4] == 'r' then
              if redis.call('HGET', KEYS[1], 'r:' .. ARGV[1]) ~= ARGV[2] then
                return 0
              end
              redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
              return 1
            end
            if w ~= ARGV[1] or redis.call('HGET', KEYS[1], 'wt') ~= ARGV[2] then
              return 0
            end
            redis.call('HSET', KEYS[1], 'we', now + tonumber(ARGV[3]))
            return 1
            """);

    /**
     * KEYS: state, reader expiries, intents, wake, waiting. ARGV: owner, token ('*': any, for an attempt whose token
     * on this node is unknown), 'r' or 'w', wake-list ttl ms, '1' to wake a waiter even if this node did not hold
     * the grant (Redlock), '2' for a failed Redlock attempt's give-back (its owner waits next: the node is flagged
     * as waited on, as in RedisScripts.RELEASE), else '0'. 1 released; 0 this grant was gone or expired. Wakes one
     * waiter if someone waits.
     */
    static final LuaScript RELEASE = new LuaScript("read-write-release", NOW_AND_DROP_EXPIRED + """
            local held
            if ARGV[3] == 'r' then
              held = redis.call('HGET', KEYS[1], 'r:' .. ARGV[1])
            elseif w == ARGV[1] then
              held = redis.call('HGET', KEYS[1], 'wt')
            end
            local released = 0
            if held and (ARGV[2] == '*' or held == ARGV[2]) then
              if ARGV[3] == 'r' then
                redis.call('HDEL', KEYS[1], 'r:' .. ARGV[1])
                redis.call('ZREM', KEYS[2], ARGV[1])
              else
                redis.call('HDEL', KEYS[1], 'w', 'wt', 'we')
              end
              released = 1
            end
            if (released == 1 or ARGV[5] == '1') and redis.call('EXISTS', KEYS[5]) == 1 then
              redis.call('LPUSH', KEYS[4], '1')
              redis.call('LTRIM', KEYS[4], 0, 0)
              redis.call('PEXPIRE', KEYS[4], ARGV[4])
            end
            if ARGV[5] == '2' then
              redis.call('SET', KEYS[5], '1', 'PX', ARGV[4])
            end
            return released
            """);

    /**
     * Redlock fence write-back. KEYS: state, reader expiries, intents. ARGV: owner, token, 'r' or 'w'. If this node
     * still holds the owner's grant, its token becomes the quorum's and the counter rises to it: 1; else 0.
     */
    static final LuaScript RAISE_FENCE = new LuaScript("read-write-raise-fence", NOW_AND_DROP_EXPIRED + """
            local field = 'wt'
            if ARGV[3] == 'r' then
              field = 'r:' .. ARGV[1]
            elseif w ~= ARGV[1] then
              return 0
            end
            if not redis.call('HGET', KEYS[1], field) then
              return 0
            end
            redis.call('HSET', KEYS[1], field, ARGV[2])
            if tonumber(redis.call('HGET', KEYS[1], 'fence') or '0') < tonumber(ARGV[2]) then
              redis.call('HSET', KEYS[1], 'fence', ARGV[2])
            end
            return 1
            """);

    /**
     * KEYS: state, reader expiries, intents, wake, waiting. ARGV: writer, writer's token, reader, ttl ms, wake-list
     * ttl ms. The write grant becomes the reader's grant in this one step: {1, token}; {0} if the write grant was
     * gone. Wakes one waiter (a reader may join).
     */
    static final LuaScript DOWNGRADE = new LuaScript("read-write-downgrade", NOW_AND_DROP_EXPIRED + """
            if w ~= ARGV[1] or redis.call('HGET', KEYS[1], 'wt') ~= ARGV[2] then
              return {0}
            end
            redis.call('HDEL', KEYS[1], 'w', 'wt', 'we')
            local token = redis.call('HINCRBY', KEYS[1], 'fence', 1)
            redis.call('HSET', KEYS[1], 'r:' .. ARGV[3], token)
            redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[3])
            if redis.call('EXISTS', KEYS[5]) == 1 then
              redis.call('LPUSH', KEYS[4], '1')
              redis.call('LTRIM', KEYS[4], 0, 0)
              redis.call('PEXPIRE', KEYS[4], ARGV[5])
            end
            return {1, token}
            """);

    /** KEYS: intents, wake, waiting. ARGV: owner, wake-list ttl ms. A writer that gave up: readers may go on. */
    static final LuaScript WITHDRAW = new LuaScript("read-write-withdraw", """
            if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 and redis.call('EXISTS', KEYS[3]) == 1 then
              redis.call('LPUSH', KEYS[2], '1')
              redis.call('LTRIM', KEYS[2], 0, 0)
              redis.call('PEXPIRE', KEYS[2], ARGV[2])
            end
            return 0
            """);

    private ReadWriteScripts() {}
}

package io.latchkey.jmh.redis;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;
import redis.clients.jedis.params.SetParams;

/**
 * The servers and clients of one benchmark trial: one redis-server ("single") or three ("redlock3"),
 * started by the lock-redis test fixtures on free loopback ports, and the three contestants on them —
 * Latchkey, Redisson (RLock, or RedissonRedLock over three clients), and raw Jedis (SET NX PX + EVALSHA
 * compare-and-delete; for Redlock the same two commands sent to all nodes in parallel, quorum 2).
 */
final class RedisTargets implements AutoCloseable {
    static final String DELETE_IF_OWNER =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
    private static final int POOL = 16;

    final boolean redlock;
    final List<RunningServer> servers;
    final List<JedisPool> pools = new ArrayList<>();
    final List<RedissonClient> redisson = new ArrayList<>();
    final ExecutorService rawExecutor;
    final byte[] deleteSha;

    RedisTargets(String target) {
        this.redlock = switch (target) {
            case "single" -> false;
            case "redlock3" -> true;
            default -> throw new IllegalArgumentException("target must be single or redlock3, was " + target);
        };
        this.servers = redlock ? RedisServers.several(3) : List.of(RedisServers.owned());
        byte[] sha = null;
        for (RunningServer s : servers) {
            JedisPoolConfig pc = new JedisPoolConfig();
            pc.setMaxTotal(POOL);
            pc.setMaxIdle(POOL);
            pc.setJmxEnabled(false);
            JedisPool pool = new JedisPool(pc, s.endpoint().host(), s.endpoint().port());
            pools.add(pool);
            try (Jedis j = pool.getResource()) {
                sha = j.scriptLoad(DELETE_IF_OWNER).getBytes(StandardCharsets.US_ASCII);
            }
        }
        this.deleteSha = sha;
        this.rawExecutor = redlock
                ? Executors.newCachedThreadPool(r -> {
                    Thread t = new Thread(r, "raw-redlock");
                    t.setDaemon(true);
                    return t;
                })
                : null;
    }

    String latchkeyUri() {
        return redlock ? RedisServers.redlockUri(servers) : RedisServers.uri(servers.get(0));
    }

    LockClient newLatchkeyClient() {
        return Latchkey.connect(latchkeyUri());
    }

    /** One Redisson client per server (Redlock needs independent clients). */
    List<RedissonClient> newRedissonClients() {
        List<RedissonClient> out = new ArrayList<>();
        for (RunningServer s : servers) {
            Config c = new Config();
            c.useSingleServer()
                    .setAddress("redis://" + s.endpoint().hostAndPort())
                    .setConnectionPoolSize(POOL)
                    .setConnectionMinimumIdleSize(8);
            RedissonClient client = Redisson.create(c);
            out.add(client);
            redisson.add(client);
        }
        return out;
    }

    /** Redisson's lock for a name: RLock, or RedissonRedLock over one RLock per node. */
    static RLock redissonLock(List<RedissonClient> clients, String name) {
        if (clients.size() == 1) {
            return clients.get(0).getLock(name);
        }
        RLock[] locks = clients.stream().map(c -> c.getLock(name)).toArray(RLock[]::new);
        return new RedissonRedLock(locks);
    }

    /** Raw: SET key owner NX PX lease on every node (in parallel for Redlock); true if a quorum said OK. */
    boolean rawAcquire(byte[] key, byte[] owner, long leaseMs) {
        SetParams params = SetParams.setParams().nx().px(leaseMs);
        if (!redlock) {
            try (Jedis j = pools.get(0).getResource()) {
                return "OK".equals(j.set(key, owner, params));
            }
        }
        List<CompletableFuture<Boolean>> replies = new ArrayList<>();
        for (JedisPool pool : pools) {
            replies.add(CompletableFuture.supplyAsync(
                    () -> {
                        try (Jedis j = pool.getResource()) {
                            return "OK".equals(j.set(key, owner, params));
                        }
                    },
                    rawExecutor));
        }
        int ok = 0;
        for (CompletableFuture<Boolean> r : replies) {
            ok += r.join() ? 1 : 0;
        }
        if (ok < 2) {
            rawRelease(key, owner);
            return false;
        }
        return true;
    }

    /** Raw: EVALSHA compare-and-delete on every node (in parallel for Redlock). */
    void rawRelease(byte[] key, byte[] owner) {
        if (!redlock) {
            try (Jedis j = pools.get(0).getResource()) {
                j.evalsha(deleteSha, 1, key, owner);
            }
            return;
        }
        List<CompletableFuture<Object>> replies = new ArrayList<>();
        for (JedisPool pool : pools) {
            replies.add(CompletableFuture.supplyAsync(
                    () -> {
                        try (Jedis j = pool.getResource()) {
                            return j.evalsha(deleteSha, 1, key, owner);
                        }
                    },
                    rawExecutor));
        }
        replies.forEach(CompletableFuture::join);
    }

    @Override
    public void close() {
        redisson.forEach(RedissonClient::shutdown);
        pools.forEach(JedisPool::close);
        if (rawExecutor != null) {
            rawExecutor.shutdownNow();
        }
        servers.forEach(RunningServer::close);
    }
}

package io.latchkey.jmh.redis;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Arrays;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.params.SetParams;

/**
 * The servers and clients of one benchmark trial: one redis-server ("single") or three ("redlock3"),
 * started by the lock-redis test fixtures on free loopback ports, and the three contestants on them —
 * Latchkey, Redisson (RLock, or RedissonRedLock over three clients), and raw Jedis (SET NX PX + EVALSHA
 * compare-and-delete; for Redlock the same two commands pipelined to all nodes at once from the caller's thread,
 * quorum 2).
 */
final class RedisTargets implements AutoCloseable {
    static final String DELETE_IF_OWNER =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
    private static final int POOL = 16;
    private static final byte[] NX = "NX".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PX = "PX".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ONE = "1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OK = "OK".getBytes(StandardCharsets.US_ASCII);

    final boolean redlock;
    final List<RunningServer> servers;
    final List<JedisPool> pools = new ArrayList<>();
    final List<RedissonClient> redisson = new ArrayList<>();
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

    /**
     * Raw: SET key owner NX PX lease on every node; true if a quorum said OK. For Redlock the fastest parallel form
     * plain Jedis allows: the command is written and flushed to every node before any reply is read, on the caller's
     * thread (no thread hop), so all nodes work at once and the round takes as long as the slowest.
     */
    boolean rawAcquire(byte[] key, byte[] owner, long leaseMs) {
        if (!redlock) {
            try (Jedis j = pools.get(0).getResource()) {
                return "OK".equals(j.set(key, owner, SetParams.setParams().nx().px(leaseMs)));
            }
        }
        byte[] px = Long.toString(leaseMs).getBytes(StandardCharsets.US_ASCII);
        Object[] replies = pipelined(Protocol.Command.SET, key, owner, NX, PX, px);
        int ok = 0;
        for (Object r : replies) {
            ok += r instanceof byte[] b && Arrays.equals(b, OK) ? 1 : 0;
        }
        if (ok < 2) {
            rawRelease(key, owner);
            return false;
        }
        return true;
    }

    /** Raw: EVALSHA compare-and-delete on every node (pipelined to all nodes at once for Redlock). */
    void rawRelease(byte[] key, byte[] owner) {
        if (!redlock) {
            try (Jedis j = pools.get(0).getResource()) {
                j.evalsha(deleteSha, 1, key, owner);
            }
            return;
        }
        pipelined(Protocol.Command.EVALSHA, deleteSha, ONE, key, owner);
    }

    /** One command written to every node, then every reply read (a node's error or failure is its reply). */
    private Object[] pipelined(Protocol.Command command, byte[]... args) {
        int n = pools.size();
        Jedis[] borrowed = new Jedis[n];
        Object[] replies = new Object[n];
        try {
            for (int i = 0; i < n; i++) {
                borrowed[i] = pools.get(i).getResource();
                Connection c = borrowed[i].getConnection();
                c.sendCommand(command, args);
                c.getMany(0); // flushes (Connection.flush() is not public), reads nothing
            }
            for (int i = 0; i < n; i++) {
                try {
                    replies[i] = borrowed[i].getConnection().getOne();
                } catch (RuntimeException e) {
                    replies[i] = e;
                }
            }
        } finally {
            for (Jedis j : borrowed) {
                if (j != null) {
                    j.close();
                }
            }
        }
        return replies;
    }

    @Override
    public void close() {
        redisson.forEach(RedissonClient::shutdown);
        pools.forEach(JedisPool::close);
        servers.forEach(RunningServer::close);
    }
}

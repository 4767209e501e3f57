package io.latchkey.redis;

import redis.clients.jedis.Connection;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.Pool;

/**
 * Makes the RedisNode of each kind of client: a JedisPool (the backend's own, with a few idle connections kept beside
 * it, or the application's), the application's RedisClient or other UnifiedJedis, and a client the backend built for
 * Sentinel or Cluster. RedisNode itself only uses what it is given.
 */
final class RedisNodes {
    private RedisNodes() {}

    /**
     * A node on a JedisPool of {@code poolSize} connections; the backend closes it only when it built it
     * ({@code ownsPool}), and keeps a few of its idle connections beside it only then (an application's pool may be
     * sized for the application alone).
     */
    @SuppressWarnings("deprecation") // JedisPool is deprecated in Jedis 8, and still what applications pass
    static RedisNode ofPool(String address, JedisPool pool, boolean ownsPool, int poolSize, int timeoutMillis) {
        if (!ownsPool) {
            return new RedisNode(
                    address, pool::getResource, pool::clear, null, () -> {}, null, null, timeoutMillis);
        }
        IdleConnections idle = poolSize >= 4 ? new IdleConnections(Math.min(4, poolSize / 4)) : null;
        if (idle == null) {
            return new RedisNode(address, pool::getResource, pool::clear, null, pool::close, warmer(pool), null, timeoutMillis);
        }
        return new RedisNode(
                address,
                () -> {
                    Jedis kept = idle.take();
                    return kept != null ? kept : pool.getResource();
                },
                () -> {
                    idle.drain();
                    pool.clear();
                },
                null,
                () -> {
                    idle.drain();
                    pool.close();
                },
                warmer(pool),
                idle,
                timeoutMillis);
    }

    /** Opens one idle connection in the pool if it has none. */
    @SuppressWarnings("deprecation") // see ofPool
    private static Runnable warmer(JedisPool pool) {
        return () -> {
            if (pool.getNumIdle() == 0) {
                pool.addObjects(1);
            }
        };
    }

    /** A node on the application's client, which the backend never closes. */
    static RedisNode ofClient(String address, UnifiedJedis client, int timeoutMillis) {
        Pool<Connection> pool = poolOf(client);
        if (pool != null) {
            return new RedisNode(
                    address, () -> new Jedis(pool.getResource()), pool::clear, null, () -> {}, null, null, timeoutMillis);
        }
        return new RedisNode(address, null, () -> {}, client, () -> {}, null, null, timeoutMillis);
    }

    /**
     * A node on a client the backend built from a URI (Sentinel, Cluster), closed with the backend by
     * {@code closer}.
     */
    static RedisNode ofOwnedClient(String address, UnifiedJedis client, Runnable closer, int timeoutMillis) {
        return new RedisNode(address, null, () -> {}, client, closer, null, null, timeoutMillis);
    }

    /** The connection pool of a RedisClient, or null when it has none (a custom connection provider). */
    private static Pool<Connection> poolOf(UnifiedJedis client) {
        if (client instanceof RedisClient rc) {
            try {
                return rc.getPool();
            } catch (RuntimeException notPooled) {
                return null;
            }
        }
        return null;
    }
}

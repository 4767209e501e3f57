package io.latchkey.redis;

import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/*
 * One Redis server, reached through a Jedis pool (the application's, or one this backend built from a
 * URI and therefore closes). Thread-safe: every call borrows its own connection.
 *
 * - Scripts run by SHA; NOSCRIPT (a restarted or flushed server) is answered by EVAL of the text, which
 *   caches it again, so clients never break and never preload.
 * - A pooled connection that broke while idle (the server restarted) fails on first use; every script is
 *   idempotent for its owner id, so such a failure is retried once on a fresh connection. A timeout is
 *   not retried: the server may be frozen, and the caller's time budget is the timeout.
 * - Waiting (BLPOP) runs in short slices with a socket timeout of slice + timeout, so that a frozen
 *   server costs at most that, and an interrupt is seen within one slice.
 */
final class RedisNode implements AutoCloseable {
    private static final long WAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final String address;
    private final JedisPool pool;
    private final boolean ownsPool;
    private final int timeoutMillis;

    RedisNode(String address, JedisPool pool, boolean ownsPool, int timeoutMillis) {
        this.address = address;
        this.pool = pool;
        this.ownsPool = ownsPool;
        this.timeoutMillis = timeoutMillis;
    }

    /** host:port (or a description of an application pool), never with a password. */
    String address() {
        return address;
    }

    JedisPool pool() {
        return pool;
    }

    /** Runs a script; the first {@code keyCount} of {@code params} are keys. */
    Object eval(LuaScript script, int keyCount, byte[]... params) {
        for (int attempt = 0; ; attempt++) {
            try (Jedis jedis = pool.getResource()) {
                try {
                    return jedis.evalsha(script.sha, keyCount, params);
                } catch (JedisNoScriptException e) {
                    return jedis.eval(script.body, keyCount, params);
                }
            } catch (JedisConnectionException e) {
                if (attempt > 0 || isTimeout(e) || !wasConnected(e)) {
                    throw e;
                }
                // a stale pooled connection: the server restarted or dropped it while idle, and so did its
                // idle siblings; drop them and try once more on a fresh connection
                pool.clear();
            }
        }
    }

    /**
     * Waits up to {@code nanos} for an element on the wake list, in slices so that an interrupt is seen
     * soon. True if one was popped.
     */
    boolean awaitWake(byte[] wakeKey, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        try (Jedis jedis = pool.getResource()) {
            var connection = jedis.getConnection();
            int saved = connection.getSoTimeout();
            try {
                for (;;) {
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                    long left = deadline - System.nanoTime();
                    long slice = Math.min(left, WAIT_SLICE_NANOS);
                    if (slice < TimeUnit.MILLISECONDS.toNanos(1)) {
                        return false; // BLPOP counts in ms and 0 means "forever"
                    }
                    long sliceMillis = TimeUnit.NANOSECONDS.toMillis(slice);
                    connection.setSoTimeout((int) sliceMillis + timeoutMillis);
                    Object reply = jedis.sendCommand(Protocol.Command.BLPOP, wakeKey,
                            String.format(java.util.Locale.ROOT, "%.3f", sliceMillis / 1000.0).getBytes(StandardCharsets.US_ASCII));
                    if (reply != null) {
                        return true;
                    }
                }
            } finally {
                if (!connection.isBroken()) {
                    connection.setSoTimeout(saved);
                }
            }
        }
    }

    /** Every key matching {@code pattern} (SCAN, so the server is never blocked). */
    List<byte[]> scan(String pattern) {
        List<byte[]> keys = new ArrayList<>();
        ScanParams params = new ScanParams().match(pattern.getBytes(StandardCharsets.UTF_8)).count(1000);
        byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
        try (Jedis jedis = pool.getResource()) {
            do {
                ScanResult<byte[]> page = jedis.scan(cursor, params);
                keys.addAll(page.getResult());
                cursor = page.getCursorAsBytes();
            } while (!"0".equals(new String(cursor, StandardCharsets.US_ASCII)));
        }
        return keys;
    }

    static boolean isTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** False when the server could not even be reached (refused connection): retrying would fail the same way. */
    private static boolean wasConnected(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.ConnectException || t instanceof java.util.NoSuchElementException) {
                return false;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return true;
    }

    @Override
    public void close() {
        if (ownsPool) {
            pool.close();
        }
    }

    @Override
    public String toString() {
        return address;
    }
}

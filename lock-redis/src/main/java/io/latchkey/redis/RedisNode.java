package io.latchkey.redis;

import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/*
 * One Redis server, reached through the application's client or a pool this backend built from a URI (and
 * therefore closes). Thread-safe: every call borrows its own connection.
 *
 * Three kinds of client:
 * - a JedisPool (deprecated in Jedis 8, still what most applications hold) and a RedisClient, Jedis 8's
 *   pooled client: a connection is borrowed from the pool for each call, so the socket timeout of BLPOP can be
 *   set per slice (below);
 * - any other UnifiedJedis (JedisCluster, RedisClusterClient, RedisSentinelClient, a RedisClient on a custom
 *   provider): its command API, which runs a blocking command with the client's blockingSocketTimeoutMillis
 *   (infinite by default), so such an application should set it for a frozen server to cost a bounded wait.
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
    /** One BLPOP of a waiter blocks at most this long, so that an interrupt is seen soon. */
    static final int WAIT_SLICE_MILLIS = 250;

    private static final long WAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(WAIT_SLICE_MILLIS);

    /** EVALSHA's key-count argument for the scripts' small counts, encoded once. */
    private static final Rawable[] KEY_COUNTS = new Rawable[10];

    static {
        for (int i = 0; i < KEY_COUNTS.length; i++) {
            KEY_COUNTS[i] = new Arg(Integer.toString(i).getBytes(StandardCharsets.US_ASCII));
        }
    }

    /**
     * One argument of a command, sent as it is. Jedis wraps every byte[] argument in a copy of it (RawableFactory.Raw):
     * half of a lock cycle's allocation went to those copies of keys, owner ids and SHAs the backend had encoded once.
     */
    private static final class Arg implements Rawable {
        private final byte[] raw;

        Arg(byte[] raw) {
            this.raw = raw;
        }

        @Override
        public byte[] getRaw() {
            return raw;
        }
    }

    private final String address;
    /** Lends a connection wrapped in a Jedis whose close() gives it back; null for a plain UnifiedJedis. */
    private final Supplier<Jedis> borrow;
    /** Drops the idle connections of the pool (after a server restart); nothing for a plain UnifiedJedis. */
    private final Runnable clear;
    /** The application's client when it has no pool we can borrow from, else null. */
    private final UnifiedJedis unified;
    /** Closes the pool the backend built, or nothing for the application's. */
    private final Runnable closer;
    /** Opens one idle connection in a pool the backend built; null otherwise. */
    private final Runnable warm;
    /** A few idle connections of a pool the backend built, kept beside it (see IdleConnections); null otherwise. */
    private final IdleConnections idle;

    private final int timeoutMillis;

    /** The last round's call to this node failed (see pipelines()); written only when it changes. */
    private volatile boolean failedLately;

    /** See RedisNodes, which makes a node of each kind of client. */
    RedisNode(
            String address,
            Supplier<Jedis> borrow,
            Runnable clear,
            UnifiedJedis unified,
            Runnable closer,
            Runnable warm,
            IdleConnections idle,
            int timeoutMillis) {
        this.warm = warm;
        this.idle = idle;
        this.address = address;
        this.borrow = borrow;
        this.clear = clear;
        this.unified = unified;
        this.closer = closer;
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * Whether every key reached through this node lives on one server, so that one script may take the keys of many
     * names: a pool, or a Sentinel client (its master). A cluster client spreads names over masters by slot, and an
     * application's client of another kind may too.
     */
    boolean oneServerForAllKeys() {
        return unified == null || unified instanceof redis.clients.jedis.RedisSentinelClient;
    }

    /** PING through this node's client: proves the server (the master, a cluster node) answers these credentials. */
    void ping() {
        if (unified != null) {
            unified.ping();
            return;
        }
        try (Jedis jedis = borrow.get()) {
            jedis.ping();
        }
    }

    /** Opens one connection in the pool (ahead of the first operation), if the pool has room for it. */
    void warm() {
        if (warm != null) {
            warm.run();
        }
    }

    /** host:port (or a description of an application pool), never with a password. */
    String address() {
        return address;
    }

    /** Runs a script; the first {@code keyCount} of {@code params} are keys. */
    Object eval(LuaScript script, int keyCount, byte[]... params) {
        if (unified != null) {
            try {
                return unified.evalsha(script.sha, keyCount, params);
            } catch (JedisNoScriptException e) {
                return unified.eval(script.body, keyCount, params);
            }
        }
        for (int attempt = 0; ; attempt++) {
            Jedis jedis = borrow.get();
            try {
                jedis.getConnection().sendCommand(evalsha(script, keyCount, params));
                return replyOrText(jedis, script, keyCount, params);
            } catch (JedisConnectionException e) {
                if (attempt > 0 || !staleConnection(e)) {
                    throw e;
                }
                // a stale pooled connection (its idle siblings were dropped too): once more on a fresh connection
            } finally {
                giveBack(jedis);
            }
        }
    }

    /** Gives a connection back: kept beside the pool when healthy and there is room, else to the pool. */
    private void giveBack(Jedis jedis) {
        if (idle == null || jedis.getConnection().isBroken() || !idle.keep(jedis)) {
            jedis.close();
        }
    }

    /** The reply to the EVALSHA just sent on {@code jedis}; NOSCRIPT is answered by EVAL of the text on it. */
    private static Object replyOrText(Jedis jedis, LuaScript script, int keyCount, byte[][] params) {
        try {
            return jedis.getConnection().getOne();
        } catch (JedisNoScriptException e) {
            return jedis.eval(script.body, keyCount, params);
        }
    }

    /**
     * The EVALSHA command: the script's SHA, the key count, the keys and arguments, none of them copied. Sent through
     * the connection (not Jedis.evalsha, whose command object and reply builder add to every call's allocation). Only
     * read when sent, so one serves every node of a round.
     */
    static CommandArguments evalsha(LuaScript script, int keyCount, byte[][] params) {
        return new EvalshaArguments(
                script.shaArgument,
                keyCount < KEY_COUNTS.length
                        ? KEY_COUNTS[keyCount]
                        : new Arg(Integer.toString(keyCount).getBytes(StandardCharsets.US_ASCII)),
                params);
    }

    /** {@code raw} as a command argument, not copied: the caller does not change it afterwards. */
    static Rawable argument(byte[] raw) {
        return new Arg(raw);
    }

    /**
     * Whether a round may pipeline a call to this node on the caller's thread: it lends pooled connections, and its
     * last call did not fail. A node that failed is asked on the executor (NodeRound) until it answers again, so that
     * opening a connection to a frozen server, which a pipelined round would do on the caller's thread and which the
     * round's deadline does not bound, never holds up the caller.
     */
    boolean pipelines() {
        return borrow != null && !failedLately;
    }

    /** A round's call to this node failed or went unanswered: later rounds ask it on the executor. */
    void failed() {
        if (!failedLately) {
            failedLately = true;
        }
    }

    /** A round's call to this node was answered: rounds may pipeline again. */
    void answered() {
        if (failedLately) {
            failedLately = false;
        }
    }

    /**
     * The first half of a pipelined call: borrows a connection and writes the script call to the socket without
     * reading the reply. The caller must hand the connection to {@link #receive} (which gives it back).
     */
    Jedis send(ScriptCall<?> call) {
        Jedis jedis = borrow.get();
        try {
            Connection connection = jedis.getConnection();
            connection.sendCommand(call.evalsha());
            connection.getMany(0); // flushes (Connection.flush() is not public) and reads nothing
            return jedis;
        } catch (RuntimeException e) {
            jedis.close();
            throw e;
        }
    }

    /**
     * The second half: the reply to what {@link #send} wrote, waited for until {@code deadline} (System.nanoTime) and
     * at most the socket timeout; NOSCRIPT is answered by EVAL of the text on the same connection. The caller gives the
     * connection back (see {@link #giveBack}).
     */
    Object receive(Jedis jedis, ScriptCall<?> call, long deadline) {
        Connection connection = jedis.getConnection();
        int saved = connection.getSoTimeout();
        long leftMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime() + 999_999));
        // an earlier node's reply took part of the round's time (a millisecond's rounding aside)
        boolean cut = saved == 0 || leftMillis < saved - 1;
        if (cut) {
            connection.setSoTimeout((int) Math.min(Integer.MAX_VALUE, leftMillis));
        }
        try {
            return replyOrText(jedis, call.script, call.keyCount, call.params);
        } finally {
            if (cut && !connection.isBroken()) {
                connection.setSoTimeout(saved);
            }
        }
    }

    /**
     * Gives a pipelined call's connection back to the pool. A broken one (a timeout) is handed to {@code background}:
     * the pool replaces a connection it drops by opening another at once, which against a frozen server blocks for the
     * socket timeout.
     */
    void giveBack(Jedis jedis, java.util.concurrent.Executor background) {
        if (jedis.getConnection().isBroken()) {
            try {
                background.execute(jedis::close);
                return;
            } catch (java.util.concurrent.RejectedExecutionException closing) { // NOPMD: closed here instead
            }
        }
        giveBack(jedis);
    }

    /**
     * Whether a call that failed with {@code e} should be sent again: a pooled connection that broke while idle (the
     * server restarted or dropped it), not a timeout (the server may be frozen, and the caller's budget is the timeout)
     * or an unreachable server. Drops the pool's idle connections if so, which broke with it.
     */
    boolean staleConnection(RuntimeException e) {
        if (e instanceof JedisConnectionException && !isTimeout(e) && wasConnected(e)) {
            clear.run();
            return true;
        }
        return false;
    }

    /**
     * Waits until {@code deadline} (System.nanoTime) for an element on the wake list, in slices so that an
     * interrupt is seen soon. True if one was popped.
     */
    boolean awaitWake(byte[] wakeKey, long deadline) throws InterruptedException {
        if (unified != null) {
            return awaitWakeUnified(wakeKey, deadline);
        }
        try (Jedis jedis = borrow.get()) {
            var connection = jedis.getConnection();
            int saved = connection.getSoTimeout();
            try {
                for (; ; ) {
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
                    Object reply = jedis.sendCommand(
                            Protocol.Command.BLPOP,
                            wakeKey,
                            String.format(java.util.Locale.ROOT, "%.3f", sliceMillis / 1000.0)
                                    .getBytes(StandardCharsets.US_ASCII));
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

    /** BLPOP in slices through the client's API, which applies its own blocking socket timeout. */
    private boolean awaitWakeUnified(byte[] wakeKey, long deadline) throws InterruptedException {
        for (; ; ) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            long slice = Math.min(deadline - System.nanoTime(), WAIT_SLICE_NANOS);
            if (slice < TimeUnit.MILLISECONDS.toNanos(1)) {
                return false;
            }
            double seconds = Math.max(0.001, TimeUnit.NANOSECONDS.toMillis(slice) / 1000.0);
            if (unified.blpop(seconds, wakeKey) != null) {
                return true;
            }
        }
    }

    /** Every key matching {@code pattern} (SCAN, so the server is never blocked). */
    List<byte[]> scan(String pattern) {
        ScanParams params =
                new ScanParams().match(pattern.getBytes(StandardCharsets.UTF_8)).count(1000);
        List<byte[]> keys = new ArrayList<>();
        if (unified instanceof RedisClusterClient cluster) {
            scanMasters(cluster, params, keys);
        } else if (unified != null) {
            scanAll(cursor -> unified.scan(cursor, params), keys);
        } else {
            try (Jedis jedis = borrow.get()) {
                scanAll(cursor -> jedis.scan(cursor, params), keys);
            }
        }
        return keys;
    }

    /** Every page of one server's SCAN, from the first cursor until the server answers cursor 0. */
    private static void scanAll(Function<byte[], ScanResult<byte[]>> page, List<byte[]> into) {
        byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
        do {
            ScanResult<byte[]> result = page.apply(cursor);
            into.addAll(result.getResult());
            cursor = result.getCursorAsBytes();
        } while (!"0".equals(new String(cursor, StandardCharsets.US_ASCII)));
    }

    /**
     * SCAN on every master of a cluster (a key lives on the master of its slot; the cluster client's own SCAN
     * needs a pattern inside one hash tag). A node that cannot be asked fails the listing, as on one server.
     */
    private static void scanMasters(RedisClusterClient cluster, ScanParams params, List<byte[]> into) {
        for (ConnectionPool pool : cluster.getClusterNodes().values()) {
            try (Jedis jedis = new Jedis(pool.getResource())) {
                Object role = jedis.role().get(0);
                String r = role instanceof byte[] bytes
                        ? new String(bytes, StandardCharsets.US_ASCII)
                        : String.valueOf(role);
                if (r.equals("master")) { // a replica's master is scanned too
                    scanAll(cursor -> jedis.scan(cursor, params), into);
                }
            }
        }
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
        closer.run();
    }

    @Override
    public String toString() {
        return address;
    }
}

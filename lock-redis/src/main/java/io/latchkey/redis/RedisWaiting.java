package io.latchkey.redis;

import io.latchkey.spi.Deadlines;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/*
 * Native wake-ups: wake-one through a list, not pub/sub. A busy acquire sets the name's "waiting" flag; a
 * release (RedisScripts.RELEASE) then pushes one element to the name's wake list, trimmed to one, which
 * exactly one BLPOP waiter pops (Redis serves the longest-blocked client first), so one release wakes one
 * waiter, never all of them and never none while one blocks. A waiter that misses a wake-up (the element
 * expired, the node failed) is retried by the core at its backoff: a lost wake-up costs one backoff, never a
 * lease.
 *
 * Redlock: a waiter blocks on one node, and a release pushes to every node's list (WAKE_ALWAYS), since the
 * node waited on may not have been part of the holder's quorum; a failed attempt's give-back flags the nodes it
 * gives back as waited on (GIVE_BACK_THEN_WAIT), since its acquire flagged only the nodes that were busy. When the
 * node waited on fails, the next wait uses the next node.
 *
 * Concurrency design. Thread-safe: every wait borrows its own connection (RedisNode.awaitWake, in slices so
 * that an interrupt is seen soon). The only mutable state is the index of the node waiters block on, a
 * volatile int: a lost update only means one more wait on a failed node, which then moves on again.
 */
final class RedisWaiting {
    private static final Logger log = LoggerFactory.getLogger(RedisWaiting.class);
    /** How long a wake element waits for a waiter (one that popped nothing in time retries at its backoff). */
    static final byte[] WAKE_TTL_MS = RedisScripts.bytes(10_000);
    /** Release: push a wake element only if this node held the owner's grant. */
    static final byte[] WAKE_IF_HELD = RedisScripts.bytes(0);
    /** Release on Redlock: push even if this node did not hold it (a waiter may block on that node). */
    static final byte[] WAKE_ALWAYS = RedisScripts.bytes(1);
    /**
     * A failed Redlock attempt's give-back: its owner waits next, so the node is flagged as waited on. The acquire
     * script flags only the nodes where it found the lock busy; a node this attempt was granted (the minority it gives
     * back) stayed unflagged, and the holder's release pushed no wake there. When that was the node waiters block on,
     * every hand-off waited for a waiter's backoff instead of a wake: the contended Redlock benchmark fell, in about
     * one run in three, to 0.2 hand-offs/ms from 5.
     */
    static final byte[] GIVE_BACK_THEN_WAIT = RedisScripts.bytes(2);

    private final RedisConnection connection;
    private final RedisKeys keys;
    private volatile int waitNode;

    RedisWaiting(RedisConnection connection, RedisKeys keys) {
        this.connection = connection;
        this.keys = keys;
    }

    /** The release script's wake mode for an owner's release. */
    byte[] releaseWakeMode() {
        return connection.redlock() ? WAKE_ALWAYS : WAKE_IF_HELD;
    }

    /** The release script's wake mode for a failed attempt's give-back. */
    byte[] giveBackWakeMode() {
        return connection.redlock() ? GIVE_BACK_THEN_WAIT : WAKE_IF_HELD;
    }

    /** Waits for a release of {@code name} that wakes this waiter; false at the timeout or after a failure. */
    boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        return awaitWake(name, keys.of(name).wake(), timeout);
    }

    /** Waits for a release that pushes to {@code wakeKey} (a lock's or a semaphore's wake list). */
    boolean awaitWake(String name, byte[] wakeKey, Duration timeout) throws InterruptedException {
        if (timeout.isNegative() || timeout.isZero()) {
            return false;
        }
        long deadline = Deadlines.after(System.nanoTime(), timeout);
        List<RedisNode> nodes = connection.nodes();
        int index = waitNode;
        try {
            return nodes.get(index).awaitWake(wakeKey, deadline);
        } catch (JedisException e) {
            // no notification from this node: poll with the core's backoff instead, and (Redlock) try the
            // next node next time, since a release pushes to every node's wake list
            if (e instanceof JedisConnectionException && nodes.size() > 1) {
                waitNode = (index + 1) % nodes.size();
            }
            if (log.isDebugEnabled()) {
                log.debug(
                        "Waiting for a release of '{}' on {} failed; polling instead: {}",
                        name,
                        connection.description(),
                        connection.errors().describe(e));
            }
            long left = Deadlines.remaining(deadline, System.nanoTime());
            if (left > 0) {
                TimeUnit.NANOSECONDS.sleep(left);
            }
            return false;
        }
    }
}

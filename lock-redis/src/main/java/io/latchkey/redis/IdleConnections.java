package io.latchkey.redis;

import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Jedis;

/*
 * A few idle connections of a pool the backend built, kept beside it so that a script call borrows and gives back a
 * connection with one compare-and-set each. Commons-pool's borrow and return take a lock, read the clock and allocate
 * a deque node, three Instants and a Duration: a sixth of a lock cycle's allocation on one node, six times over on
 * Redlock-3.
 *
 * Concurrency: a connection sits in at most one slot, and a thread owns it from the compare-and-set that empties the
 * slot until the one that fills a slot with it again (or until it closes it, which gives it back to the pool). A
 * thread starts its search at a slot picked by its id, so threads that call in a loop tend to find their own
 * connection. The pool counts kept connections as borrowed: the backend keeps at most a quarter of its pool here, and
 * every borrow looks here first, so a connection kept here never leaves another caller waiting on the pool.
 * drain() gives every kept connection back (before the pool drops its idle ones after a restart, and before it
 * closes).
 */
final class IdleConnections {
    private final AtomicReferenceArray<Jedis> slots;
    private final int mask;

    /** Keeps up to {@code size} connections, rounded down to a power of two (at least 1). */
    IdleConnections(int size) {
        int n = Integer.highestOneBit(Math.max(1, size));
        this.slots = new AtomicReferenceArray<>(n);
        this.mask = n - 1;
    }

    /** A kept connection, now the caller's; null when none is kept. */
    @Nullable Jedis take() {
        int start = start();
        for (int i = 0; i <= mask; i++) {
            int slot = (start + i) & mask;
            Jedis j = slots.get(slot);
            if (j != null && slots.compareAndSet(slot, j, null)) {
                return j;
            }
        }
        return null;
    }

    /** Keeps a healthy connection the caller is done with; false when every slot is taken (the caller closes it). */
    boolean keep(Jedis jedis) {
        int start = start();
        for (int i = 0; i <= mask; i++) {
            int slot = (start + i) & mask;
            if (slots.get(slot) == null && slots.compareAndSet(slot, null, jedis)) {
                return true;
            }
        }
        return false;
    }

    /** Gives every kept connection back to its pool. */
    void drain() {
        for (int slot = 0; slot <= mask; slot++) {
            Jedis j = slots.getAndSet(slot, null);
            if (j != null) {
                j.close();
            }
        }
    }

    @SuppressWarnings("deprecation") // Thread.getId: threadId() is Java 19+, and this library targets 17
    private int start() {
        return (int) Thread.currentThread().getId() & mask;
    }
}

package io.latchkey.etcd;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/*
 * One etcd lease of this client, from grant to death, and everything bound to it: the grants made on it
 * (told SESSION_LOST when it dies) and the waiters whose queue keys live on it (woken when it dies, so that
 * a waiter whose lease expired is never granted the lock: etcd issue 11456).
 *
 * Concurrency design. `confirmedUntil` is written only by the keeper's scheduler thread and only moves
 * forward; anyone may read it. `dead` flips once (CAS); the thread that flips it does the reporting, and
 * readers that add a grant or a waiter re-check `alive()` after adding, so none is missed by the reporting
 * sweep. The keep-alive bookkeeping fields are confined to the keeper's single scheduler thread.
 */
final class LeaseSession {
    final long id;
    final long ttlNanos;
    final long driftNanos;
    final long guardNanos;
    final Set<HeldKey> grants = ConcurrentHashMap.newKeySet();
    final Set<Runnable> deathWatchers = ConcurrentHashMap.newKeySet();

    private final AtomicBoolean dead = new AtomicBoolean();
    private volatile long confirmedUntil;
    private volatile String deathDetail;

    // scheduler-thread confined
    long nextKeepAliveAt;
    boolean keepAliveInFlight;
    long keepAliveSentAt;
    long keepAliveSeq;
    ScheduledFuture<?> tick;

    /**
     * @param grantStartNanos when the grant request was sent: the lease lives at least TTL from then
     */
    LeaseSession(long id, long ttlSeconds, long grantStartNanos) {
        this.id = id;
        this.ttlNanos = TimeUnit.SECONDS.toNanos(ttlSeconds);
        this.driftNanos = ttlNanos / 100 + TimeUnit.MILLISECONDS.toNanos(2);
        this.guardNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(500), ttlNanos / 10);
        this.confirmedUntil = grantStartNanos + ttlNanos - driftNanos;
        this.nextKeepAliveAt = grantStartNanos + ttlNanos / 3;
    }

    boolean alive() {
        return !dead.get();
    }

    /** The lease surely lives until then (local monotonic clock), unless revoked. */
    long confirmedUntil() {
        return confirmedUntil;
    }

    /** When the keeper gives up on the lease if no keep-alive has been confirmed by then. */
    long lossDeadline() {
        return confirmedUntil - guardNanos;
    }

    /** A keep-alive sent at {@code sentAt} was answered with this TTL. */
    void confirm(long sentAt, long ttlSeconds) {
        long until = sentAt + TimeUnit.SECONDS.toNanos(ttlSeconds) - driftNanos;
        if (until - confirmedUntil > 0) {
            confirmedUntil = until;
        }
    }

    /** Marks the lease dead; true for the one caller that did it. */
    boolean markDead(String detail) {
        if (dead.compareAndSet(false, true)) {
            deathDetail = detail;
            return true;
        }
        return false;
    }

    String deathDetail() {
        return deathDetail;
    }

    String idHex() {
        return Long.toHexString(id);
    }

    @Override
    public String toString() {
        return "lease " + idHex() + " (TTL " + TimeUnit.NANOSECONDS.toSeconds(ttlNanos) + " s, "
                + (alive() ? "alive" : "dead") + ")";
    }
}

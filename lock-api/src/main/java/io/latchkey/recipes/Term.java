package io.latchkey.recipes;

import io.latchkey.LockHandle;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One term of leadership: one grant of the election lock. Terms of one election rise strictly: each carries the
 * grant's fencing token, greater than every earlier term's on every backend, so a resource that remembers the
 * highest token it saw can reject a deposed leader's late writes.
 *
 * <p>A term shows its grant's validity but not its renew or release: the elector owns the grant.
 */
public final class Term {
    private final LockHandle handle;
    private final Instant electedAt;
    private final AtomicBoolean ended = new AtomicBoolean();

    Term(LockHandle handle, Instant electedAt) {
        this.handle = handle;
        this.electedAt = electedAt;
    }

    /**
     * The election's name (the lock's name).
     *
     * @return the election's name
     */
    public String name() {
        return handle.name();
    }

    /**
     * The fencing token of this term: strictly greater than every earlier term's.
     *
     * @return the term's fencing token
     */
    public long fencingToken() {
        return handle.fencingToken();
    }

    /**
     * The owner id the store records for this term (see {@link Elector#currentLeader()}).
     *
     * @return the owner id of this term's grant
     */
    public String owner() {
        return handle.owner();
    }

    /**
     * When this instance was elected (wall clock, for display).
     *
     * @return the instant of election, on the client's wall clock
     */
    public Instant electedAt() {
        return electedAt;
    }

    /**
     * Until when the term is guaranteed, unless renewed: no other instance can be elected before this instant
     * (judged conservatively by a monotonic clock). Moves forward with each renewal.
     *
     * @return the instant until which no other instance can lead without a renewal of this term
     */
    public Instant validUntil() {
        return handle.validUntil();
    }

    /**
     * True while this term lasts: not revoked, and its grant still valid.
     *
     * @return whether this term still lasts
     */
    public boolean isCurrent() {
        return !ended.get() && handle.isValid();
    }

    LockHandle handle() {
        return handle;
    }

    /** Marks the term ended; true for the one call that ended it. */
    boolean end() {
        return ended.compareAndSet(false, true);
    }

    @Override
    public String toString() {
        return "Term[" + name() + ", token " + fencingToken() + ", " + (isCurrent() ? "current" : "ended") + "]";
    }
}

package io.latchkey.tck;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Counts the permits held inside a section at once, for the semaphore rules: {@link #enter} adds a holder's
 * permits and records an over-grant if the sum passes the limit, {@link #exit} takes them out. Unlike a counter of
 * acquisitions, it fails when two grants overlap that the store should have kept apart.
 */
public final class PermitRegister {
    private final int limit;
    private final AtomicInteger inUse = new AtomicInteger();
    private final AtomicInteger most = new AtomicInteger();
    private final AtomicInteger overGrants = new AtomicInteger();
    private final AtomicReference<String> firstOverGrant = new AtomicReference<>();

    /**
     * A register for a semaphore of {@code limit} permits.
     *
     * @param limit the semaphore's permit count
     */
    public PermitRegister(int limit) {
        this.limit = limit;
    }

    /**
     * Puts {@code permits} in use; counts an over-grant if more than the limit are in use then.
     *
     * @param holder who enters, named in the over-grant's description
     * @param permits the permits it holds
     */
    public void enter(String holder, int permits) {
        int now = inUse.addAndGet(permits);
        most.accumulateAndGet(now, Math::max);
        if (now > limit) {
            overGrants.incrementAndGet();
            firstOverGrant.compareAndSet(
                    null, holder + " entered with " + permits + " permit(s): " + now + " in use of " + limit);
        }
    }

    /**
     * Takes {@code permits} out of use.
     *
     * @param permits the permits given back
     */
    public void exit(int permits) {
        inUse.addAndGet(-permits);
    }

    /**
     * How many times more permits than the limit were in use.
     *
     * @return the over-grants
     */
    public int overGrants() {
        return overGrants.get();
    }

    /**
     * The most permits ever in use at once.
     *
     * @return the most permits in use
     */
    public int most() {
        return most.get();
    }

    /**
     * A description of the first over-grant, or null.
     *
     * @return the description, or {@code null} if none
     */
    public String firstOverGrant() {
        return firstOverGrant.get();
    }
}

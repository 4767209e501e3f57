package io.latchkey.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;

/*
 * Single-flight per name inside one client. Each name in use has a Gate: a fair one-permit semaphore
 * whose permit is taken before contending in the store and given back only when the grant ends (released
 * or lost). So at most one thread per client talks to the store for a name, local waiters queue in FIFO
 * order without any store traffic, and a release hands the lock to the next local waiter with a single
 * round trip. The semaphore is not owned by a thread, so a handle may be released from any thread.
 *
 * Gates are reference counted (entered by every waiter and holder) and dropped from the map when the last
 * user leaves, so the map holds only names in use. Counting happens inside ConcurrentHashMap.compute,
 * which makes "last one out removes" and "newcomer reuses" atomic with each other; the first user of a name
 * puts a gate already counting one with putIfAbsent, which is atomic with both as well.
 */
final class LocalGates {
    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();

    /**
     * A name's gate: a fair one-permit semaphore, built on AbstractQueuedSynchronizer itself rather than wrapping a
     * Semaphore and its Sync (one object per use instead of two). State 1 is taken, 0 free; it is not owned by a
     * thread, so any thread may leave it.
     */
    static final class Gate extends AbstractQueuedSynchronizer {
        private static final long serialVersionUID = 1L;

        final transient String name;
        transient int users; // guarded by the map's bin lock (only touched inside compute)

        Gate(String name) {
            this.name = name;
        }

        @Override
        protected boolean tryAcquire(int ignored) {
            return !hasQueuedPredecessors() && compareAndSetState(0, 1); // fair: FIFO behind those queued
        }

        @Override
        protected boolean tryRelease(int ignored) {
            setState(0);
            return true;
        }

        /** Takes the permit only if it is free and nobody is queued for it. */
        boolean tryEnterNow() {
            return !hasQueuedThreads() && compareAndSetState(0, 1);
        }

        /** Takes the permit in FIFO order, waiting up to the given time (0: only if free and nobody queued). */
        boolean tryEnter(long nanos) throws InterruptedException {
            return tryAcquireNanos(1, nanos);
        }

        void leave() {
            release(1);
        }

        int queued() {
            return getQueueLength();
        }
    }

    Gate use(String name) {
        // the common case, a name nobody here uses: absent -> one user in one atomic step, without compute's
        // placeholder node; a name in use is counted inside compute
        Gate fresh = new Gate(name);
        fresh.users = 1;
        Gate had = gates.putIfAbsent(name, fresh);
        if (had == null) {
            return fresh;
        }
        return gates.compute(name, (k, g) -> {
            Gate gate = g == null ? new Gate(k) : g;
            gate.users++;
            return gate;
        });
    }

    void unuse(Gate gate) {
        gates.computeIfPresent(gate.name, (k, g) -> --g.users == 0 ? null : g);
    }
}

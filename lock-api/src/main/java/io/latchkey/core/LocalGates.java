package io.latchkey.core;

import io.latchkey.spi.Grant;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;

/*
 * Single-flight per name inside one client, and the client's registry of the grants it holds. Each name in use has a Gate: a fair one-permit semaphore
 * whose permit is taken before contending in the store and given back only when the grant ends (released
 * or lost). So at most one thread per client talks to the store for a name, local waiters queue in FIFO
 * order without any store traffic, and a release hands the lock to the next local waiter: in the release's own round
 * trip where the store can hand over (HandOffs), else with the waiter's one attempt. The semaphore is not owned by a thread, so a handle may be released from any thread.
 *
 * Gates are reference counted (entered by every waiter and holder) and dropped from the map when the last
 * user leaves, so the map holds only names in use. Counting happens inside ConcurrentHashMap.compute,
 * which makes "last one out removes" and "newcomer reuses" atomic with each other; the first user of a name
 * puts a gate already counting one with putIfAbsent, which is atomic with both as well.
 *
 * The gate is also where the client finds the grant held under a key (store-reported losses, re-entry, held()):
 * a holder is a user of its gate until it has left it, so a held grant's gate is always in the map. One map
 * for both saves a second map's insert and removal, and its node, on every acquisition. `holder` is written only
 * by the thread that holds the gate's permit (set after the grant is made, cleared before the permit is given
 * back), so there is never more than one holder per gate and no write races another.
 *
 * A gate dropped from the map is kept as a spare and given to the next name that needs one (one object fewer per
 * acquisition). Spares sit in a small array of slots, each taken and filled with one atomic step, so no gate is
 * ever in two places (a linked free list would need ABA protection). Recycling is safe because nothing uses a gate
 * after its last user left: every user holds a count, a holder leaves only after clearing `holder`, and the only
 * reader that may see a gate change keys under it, holder(key), checks the holder's key.
 *
 * A gate may also carry a grant the store made for whoever takes its permit next (HandOffs: a release that handed
 * the lock over inside this client). It is parked by the permit's holder before it gives the permit back, and taken
 * with one atomic step by the next one to enter; if the gate's last user leaves with it untaken (the waiter gave up
 * meanwhile), that user gives it back to the store, outside the map's lock, so nothing is left held.
 */
final class LocalGates {
    private static final int SPARE_SLOTS = 16; // a power of two: a thread's slot is its id's low bits

    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();
    private final AtomicReferenceArray<Gate> spares = new AtomicReferenceArray<>(SPARE_SLOTS * ThreadStripes.SPACING);
    /** Gives a grant that was handed over and never taken back to the store (best effort). */
    private final java.util.function.Consumer<Grant> untakenHandOffs;

    LocalGates(java.util.function.Consumer<Grant> untakenHandOffs) {
        this.untakenHandOffs = untakenHandOffs;
    }

    /**
     * A name's gate: a fair one-permit semaphore, built on AbstractQueuedSynchronizer itself rather than wrapping a
     * Semaphore and its Sync (one object per use instead of two). State 1 is taken, 0 free; it is not owned by a
     * thread, so any thread may leave it.
     */
    static final class Gate extends AbstractQueuedSynchronizer {
        private static final long serialVersionUID = 1L;

        transient String name; // set before the gate is published through the map, never while it is in it
        transient int users; // guarded by the map's bin lock (only touched inside compute)
        transient volatile HeldLock holder; // the grant held under this key, else null
        transient volatile HandOffs.Parked parked; // a grant made for the next to enter (HandOffs), else null

        private static final VarHandle PARKED;

        static {
            try {
                PARKED = MethodHandles.lookup().findVarHandle(Gate.class, "parked", HandOffs.Parked.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        Gate(String name) {
            this.name = name;
        }

        /** Leaves a grant for the next to enter; by the permit's holder, before it gives the permit back. */
        void park(HandOffs.Parked grant) {
            parked = grant;
        }

        /** The grant parked for whoever enters, taken so that no one else gets it; null if none. */
        HandOffs.Parked takeParked() {
            return parked == null ? null : (HandOffs.Parked) PARKED.getAndSet(this, null);
        }

        boolean hasWaiters() {
            return hasQueuedThreads();
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

        /** Free, nobody queued, no holder: as a new gate. */
        boolean idle() {
            return holder == null && parked == null && getState() == 0 && !hasQueuedThreads();
        }

        int queued() {
            return getQueueLength();
        }
    }

    Gate use(String name) {
        // the common case, a name nobody here uses: absent -> one user in one atomic step, without compute's
        // placeholder node; a name in use is counted inside compute
        Gate fresh = spareOrNew(name);
        fresh.users = 1;
        Gate had = gates.putIfAbsent(name, fresh);
        if (had == null) {
            return fresh;
        }
        keepSpare(fresh); // never published: still free
        return gates.compute(name, (k, g) -> {
            Gate gate = g == null ? new Gate(k) : g;
            gate.users++;
            return gate;
        });
    }

    void unuse(Gate gate) {
        if (gates.computeIfPresent(gate.name, (k, g) -> --g.users == 0 ? null : g) == null) {
            // its last user left: nothing refers to it any more but stale references, unused
            HandOffs.Parked untaken = gate.takeParked();
            keepSpare(gate);
            if (untaken != null) {
                untakenHandOffs.accept(untaken.grant());
            }
        }
    }

    /** Records the grant held under the gate's key; by the thread that holds the gate's permit. */
    void register(Gate gate, HeldLock h) {
        gate.holder = h;
    }

    /** Forgets the grant, before its permit is given back: no later holder can be there yet. */
    void forget(Gate gate, HeldLock h) {
        if (gate.holder == h) {
            gate.holder = null;
        }
    }

    /** Whether some acquisition or grant of this client uses the key's gate now. */
    boolean inUse(String key) {
        return gates.containsKey(key);
    }

    /** The grant held under this key now, else null. */
    HeldLock holder(String key) {
        Gate g = gates.get(key);
        HeldLock h = g == null ? null : g.holder;
        return h != null && h.key.equals(key) ? h : null; // the gate may have become a spare and another key's since
    }

    private Gate spareOrNew(String name) {
        int slot = slotOfThisThread();
        Gate g = spares.get(slot) == null ? null : spares.getAndSet(slot, null);
        if (g == null) {
            return new Gate(name);
        }
        g.name = name;
        return g;
    }

    private void keepSpare(Gate g) {
        if (g.idle()) { // else something still uses it (a bug): let it go
            int slot = slotOfThisThread();
            if (spares.get(slot) == null) {
                spares.compareAndSet(slot, null, g);
            }
        }
    }

    private static int slotOfThisThread() {
        return ThreadStripes.index(SPARE_SLOTS); // slots a cache line apart: threads on different cores do not share one
    }

    /** The grants held now: a snapshot, weakly consistent as the map's iterator is. */
    List<HeldLock> holders() {
        List<HeldLock> out = new ArrayList<>();
        for (Gate g : gates.values()) {
            HeldLock h = g.holder;
            if (h != null) {
                out.add(h);
            }
        }
        return out;
    }
}

package io.latchkey.recipes;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockException;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.spi.DaemonThreads;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The elector: one election thread contends for the lock, holds each term until it ends, and contends again.
 *
 * Concurrency design. `current` holds the term in force, or null. A term is ended exactly once, by whoever wins
 * Term.end(): the grant's loss listener (LOST, on a core thread), relinquish() or close() (on the caller's thread).
 * The winner clears `current`, queues onRevoked behind the term's onElected on every listener's SerialListener,
 * and signals `changed`; relinquish() and close() then release the grant themselves, on their own thread, so the
 * store hears of it before they return. The election thread only ever blocks in the lock's acquire() or in
 * `changed.await` (for the term's end or the back-off's end); close() and relinquish() wake it with `changed` and,
 * while it waits in the store, with an interrupt (the thread is the elector's own, so the interrupt reaches no one
 * else). `stateLock` guards only the flags and the condition: no I/O and no listener call runs under it.
 */
final class LockElector implements Elector {
    private static final Logger log = LoggerFactory.getLogger(LockElector.class);

    private final LockClient client;
    private final DistributedLock lock;
    private final Duration relinquishBackoff;
    private final List<SerialListener> listeners;
    private final List<ElectionListener> listenerCalls;

    private final AtomicReference<@Nullable Term> current = new AtomicReference<>();
    private final ReentrantLock stateLock = new ReentrantLock();
    private final Condition changed = stateLock.newCondition();
    private boolean started;
    private boolean closed;
    private boolean contending; // the election thread is (or is about to be) inside acquire()
    private long backoffUntilNanos;
    private @Nullable Thread thread;

    LockElector(
            LockClient client, DistributedLock lock, Duration relinquishBackoff, List<Elector.Builder.Registered> ls) {
        this.client = client;
        this.lock = lock;
        this.relinquishBackoff = relinquishBackoff;
        this.listeners = ls.stream()
                .map(r -> new SerialListener(r.executor(), "elector '" + lock.name() + "'"))
                .toList();
        this.listenerCalls =
                ls.stream().map(Elector.Builder.Registered::listener).toList();
    }

    @Override
    public String name() {
        return lock.name();
    }

    @Override
    public Elector start() {
        stateLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("elector '" + name() + "' is closed");
            }
            if (started) {
                throw new IllegalStateException("elector '" + name() + "' was already started");
            }
            started = true;
            thread = DaemonThreads.start("latchkey-elector-" + name(), this::elect);
        } finally {
            stateLock.unlock();
        }
        return this;
    }

    @Override
    public boolean isLeader() {
        Term t = current.get();
        return t != null && t.isCurrent();
    }

    @Override
    public Optional<Term> term() {
        Term t = current.get();
        return t != null && t.isCurrent() ? Optional.of(t) : Optional.empty();
    }

    @Override
    public Optional<Term> awaitLeadership(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + Math.max(0, wait.toNanos());
        stateLock.lock();
        try {
            while (true) {
                Optional<Term> t = term();
                if (t.isPresent() || closed) {
                    return t;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                // a term can also end by validity running out, which signals nobody: wake at least every 50 ms
                changed.await(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)), TimeUnit.NANOSECONDS);
            }
        } finally {
            stateLock.unlock();
        }
    }

    @Override
    public Optional<LockInfo> currentLeader() {
        return client.inspect(name());
    }

    @Override
    public void relinquish() {
        stateLock.lock();
        try {
            backoffUntilNanos = System.nanoTime() + relinquishBackoff.toNanos();
            wakeElectionThread();
        } finally {
            stateLock.unlock();
        }
        Term t = current.get();
        if (t != null) {
            endTerm(t, new Revocation(Revocation.Reason.RELINQUISHED, null));
            t.handle().close(); // released before we return, so another elector can win at once
        }
    }

    @Override
    public void close() {
        Thread t;
        stateLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            t = thread;
            wakeElectionThread();
        } finally {
            stateLock.unlock();
        }
        Term term = current.get();
        if (term != null) {
            endTerm(term, new Revocation(Revocation.Reason.CLOSED, null));
            term.handle().close();
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Under stateLock: wakes the election thread wherever it waits. */
    private void wakeElectionThread() {
        changed.signalAll();
        Thread t = thread;
        if (contending && t != null) {
            t.interrupt();
        }
    }

    private void elect() {
        while (true) {
            LockHandle handle;
            try {
                if (!awaitTurnToContend()) {
                    return;
                }
                handle = lock.acquire();
            } catch (InterruptedException e) {
                continue; // close() or relinquish(): the loop looks at the state again
            } catch (LockException e) {
                log.warn("elector '{}': contending failed on {}; trying again", name(), client.backend(), e);
                pauseAfterFailure();
                continue;
            } catch (IllegalStateException e) {
                // the client was closed under the elector: no grant can ever come, so the election ends here
                log.warn(
                        "elector '{}': its client on {} was closed; the elector stops (close an elector before its"
                                + " client)",
                        name(),
                        client.backend());
                stopForGood();
                return;
            } finally {
                stopContending();
            }
            Term term = new Term(handle, Instant.now());
            if (!beginTerm(term)) {
                handle.close(); // closed or relinquished while the grant was on its way
                continue;
            }
            handle.onLost(loss -> endTerm(term, new Revocation(Revocation.Reason.LOST, loss)));
            awaitEnd(term);
        }
    }

    /** Waits out a back-off; false once closed. Marks the thread as contending when it returns true. */
    private boolean awaitTurnToContend() throws InterruptedException {
        stateLock.lock();
        try {
            while (!closed) {
                long left = backoffUntilNanos - System.nanoTime();
                if (left <= 0) {
                    contending = true;
                    return true;
                }
                changed.awaitNanos(left);
            }
            return false;
        } finally {
            stateLock.unlock();
        }
    }

    private void stopContending() {
        stateLock.lock();
        try {
            contending = false;
        } finally {
            stateLock.unlock();
        }
        Thread.interrupted(); // an interrupt meant for the wait in the store must not outlive it
    }

    /** Marks the elector closed from the election thread itself (it holds no term while contending). */
    private void stopForGood() {
        stateLock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            stateLock.unlock();
        }
    }

    private void pauseAfterFailure() {
        stateLock.lock();
        try {
            backoffUntilNanos =
                    System.nanoTime() + lock.options().renewInterval().toNanos();
        } finally {
            stateLock.unlock();
        }
    }

    /** Installs the term unless closed or in a back-off; queues onElected. */
    private boolean beginTerm(Term term) {
        stateLock.lock();
        try {
            if (closed || backoffUntilNanos - System.nanoTime() > 0) {
                return false;
            }
            current.set(term);
            changed.signalAll();
        } finally {
            stateLock.unlock();
        }
        for (int i = 0; i < listeners.size(); i++) {
            ElectionListener l = listenerCalls.get(i);
            listeners.get(i).submit(() -> l.onElected(term));
        }
        log.info("elector '{}': elected, term token {}", name(), term.fencingToken());
        return true;
    }

    /** Ends the term once: whoever calls first clears it, queues onRevoked and wakes the election thread. */
    private void endTerm(Term term, Revocation why) {
        if (!term.end()) {
            return;
        }
        stateLock.lock();
        try {
            current.compareAndSet(term, null);
            changed.signalAll();
        } finally {
            stateLock.unlock();
        }
        for (int i = 0; i < listeners.size(); i++) {
            ElectionListener l = listenerCalls.get(i);
            listeners.get(i).submit(() -> l.onRevoked(term, why));
        }
        LockLoss loss = why.loss();
        if (loss != null) {
            log.warn("elector '{}': term {} revoked: {}", name(), term.fencingToken(), loss);
        } else {
            log.info("elector '{}': term {} ended: {}", name(), term.fencingToken(), why.reason());
        }
    }

    /** Waits until the term has ended (by loss, relinquish or close). */
    private void awaitEnd(Term term) {
        stateLock.lock();
        try {
            while (current.get() == term && !closed) {
                changed.awaitUninterruptibly();
            }
        } finally {
            stateLock.unlock();
        }
    }

    @Override
    public String toString() {
        Term t = current.get();
        return "Elector[" + name() + " on " + client.backend() + ", " + (t == null ? "not leading" : t) + "]";
    }
}

package io.latchkey.etcd;

import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.latchkey.LockLoss;
import io.latchkey.spi.DaemonThreads;
import io.latchkey.spi.GrantLossSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Keeps the client's one etcd lease alive: granted at first use (never per acquire), refreshed with a
 * keep-alive every TTL/3, replaced by a new lease when it dies.
 *
 * Why not jetcd's keepAlive(observer): it reports a transient stream error as onError, judges deadlines by
 * the wall clock, and never says when a refreshed request was sent. Here each keep-alive is one
 * keepAliveOnce whose send time we record, so "the lease lives until send time + TTL - drift" is a
 * conservative fact on the local monotonic clock. If no keep-alive is confirmed before that point minus a
 * guard, the lease is given up: every grant on it is reported SESSION_LOST *before* the server can have
 * expired it, waiters on it are woken, and it is revoked in the background so its keys go at once.
 *
 * Concurrency design. One daemon scheduler thread per backend runs every timer and keep-alive callback, so
 * the keep-alive bookkeeping in LeaseSession is confined to it and it never blocks (all I/O is asynchronous).
 * `current` (the live lease, or the grant in flight) is guarded by `lock`, which is never held during I/O:
 * the first caller installs a future and sends the grant, later callers wait on that future.
 */
final class EtcdRenewal implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EtcdRenewal.class);
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final Lease leases;
    private final long ttlSeconds;
    private final EtcdCalls calls;
    private final ScheduledThreadPoolExecutor scheduler;
    private final ReentrantLock lock = new ReentrantLock();
    private final Consumer<LeaseSession> onDeath;
    private CompletableFuture<LeaseSession> current; // guarded by lock
    private volatile GrantLossSink sink;
    private volatile boolean closed;

    EtcdRenewal(Lease leases, long ttlSeconds, EtcdCalls calls, Consumer<LeaseSession> onDeath) {
        this.leases = leases;
        this.ttlSeconds = ttlSeconds;
        this.calls = calls;
        this.onDeath = onDeath;
        this.scheduler = new ScheduledThreadPoolExecutor(
                1, DaemonThreads.single("latchkey-etcd-lease-" + THREADS.incrementAndGet()));
        this.scheduler.setRemoveOnCancelPolicy(true);
    }

    void bind(GrantLossSink sink) {
        this.sink = sink;
    }

    /** The live lease, granting one if there is none (one request, once per lease). */
    LeaseSession session() {
        return session(calls.timeoutNanos());
    }

    /** As {@link #session()}, waiting at most {@code timeoutNanos} for a grant. */
    LeaseSession session(long timeoutNanos) {
        for (; ; ) {
            CompletableFuture<LeaseSession> f;
            boolean mine = false;
            lock.lock();
            try {
                if (closed) {
                    throw new IllegalStateException("etcd backend " + calls.backend() + " is closed");
                }
                f = current;
                if (f == null
                        || f.isCompletedExceptionally()
                        || (f.isDone() && !f.join().alive())) {
                    f = new CompletableFuture<>();
                    current = f;
                    mine = true;
                }
            } finally {
                lock.unlock();
            }
            if (mine) {
                grant(f);
            }
            LeaseSession s = calls.await(f, "granting this client's lease", null, timeoutNanos);
            if (s.alive()) {
                return s;
            }
        }
    }

    /** Starts granting the lease now, without waiting, so the first acquisition finds it ready. */
    void prefetch() {
        CompletableFuture<LeaseSession> f = null;
        lock.lock();
        try {
            if (!closed && current == null) {
                f = new CompletableFuture<>();
                current = f;
            }
        } finally {
            lock.unlock();
        }
        if (f != null) {
            grant(f);
        }
    }

    /**
     * How long a lease this client does not keep alive surely lives, for a key of the same owner that another client
     * made (a retried acquisition): etcd's remaining TTL for it, counted from {@code startNanos} (before the request,
     * so the lease lives at least that long), less the drift allowance. etcd truncates the remaining time to whole
     * seconds ({@code int64(l.Remaining().Seconds())}), which only understates it. Nobody may be keeping that lease
     * alive any more, so a grant on it is valid no longer than this.
     *
     * @return the end on the local monotonic clock; {@code startNanos} or earlier when the lease has (nearly) ended
     */
    long foreignLeaseEnd(long leaseId, long startNanos, String name) {
        long ttlSeconds = calls.await(
                        leases.timeToLive(leaseId, io.etcd.jetcd.options.LeaseOption.DEFAULT),
                        "reading the lease of the owner's key",
                        name)
                .getTTL();
        if (ttlSeconds <= 0) {
            return startNanos; // gone (-1) or ending within the second
        }
        long lives = TimeUnit.SECONDS.toNanos(ttlSeconds);
        return startNanos + lives - lives / 100 - TimeUnit.MILLISECONDS.toNanos(2);
    }

    /**
     * Whether etcd still has the lease (a renewal that finds its key gone asks, to tell a revoked or expired lease,
     * {@code SESSION_LOST}, from a key deleted by a forced release).
     */
    boolean leaseExists(long leaseId, String name) {
        return calls.await(
                                leases.timeToLive(leaseId, io.etcd.jetcd.options.LeaseOption.DEFAULT),
                                "reading the client's lease",
                                name)
                        .getTTL()
                > 0;
    }

    /** The id of the live lease, if one is granted. */
    OptionalLong currentLeaseId() {
        lock.lock();
        try {
            CompletableFuture<LeaseSession> f = current;
            LeaseSession s = f == null ? null : f.getNow(null);
            return s != null && s.alive() ? OptionalLong.of(s.id) : OptionalLong.empty();
        } catch (RuntimeException failedGrant) {
            return OptionalLong.empty();
        } finally {
            lock.unlock();
        }
    }

    private void grant(CompletableFuture<LeaseSession> f) {
        long start = System.nanoTime();
        CompletableFuture<LeaseGrantResponse> request;
        try {
            request = leases.grant(ttlSeconds);
        } catch (RuntimeException e) {
            forget(f);
            f.completeExceptionally(e);
            return;
        }
        request.whenComplete((r, t) -> {
            if (t != null) {
                forget(f);
                f.completeExceptionally(calls.failure(t, "granting this client's lease", null));
                return;
            }
            LeaseSession s = new LeaseSession(r.getID(), r.getTTL(), start);
            log.debug("granted {} on {}", s, calls.backend());
            if (!f.complete(s)) {
                return; // the grant was abandoned (closed): the lease expires by itself
            }
            try {
                scheduler.execute(() -> tick(s));
            } catch (RejectedExecutionException closing) {
                s.markDead("the backend was closed");
            }
        });
    }

    private void forget(CompletableFuture<LeaseSession> f) {
        lock.lock();
        try {
            if (current == f) {
                current = null;
            }
        } finally {
            lock.unlock();
        }
    }

    private void tick(LeaseSession s) {
        if (closed || !s.alive()) {
            return;
        }
        long now = System.nanoTime();
        if (now - s.lossDeadline() >= 0) {
            die(
                    s,
                    "no keep-alive of " + s + " was confirmed in time (the lease is surely alive only until "
                            + Duration.ofNanos(s.ttlNanos) + " after the last confirmed keep-alive was sent)",
                    true);
            return;
        }
        long keepAliveTimeout = keepAliveTimeout(s);
        if (s.keepAliveInFlight && now - s.keepAliveSentAt >= keepAliveTimeout) {
            s.keepAliveInFlight = false; // give up on it; a late answer is still used if it confirms
            s.nextKeepAliveAt = now;
        }
        if (!s.keepAliveInFlight && now - s.nextKeepAliveAt >= 0) {
            sendKeepAlive(s, now);
        }
        long next = s.lossDeadline();
        long due = s.keepAliveInFlight ? s.keepAliveSentAt + keepAliveTimeout : s.nextKeepAliveAt;
        if (due - next < 0) {
            next = due;
        }
        schedule(s, Math.max(0, next - System.nanoTime()));
    }

    private long keepAliveTimeout(LeaseSession s) {
        return Math.max(TimeUnit.MILLISECONDS.toNanos(200), Math.min(calls.timeoutNanos(), s.ttlNanos / 4));
    }

    private void schedule(LeaseSession s, long delayNanos) {
        if (s.tick != null) {
            s.tick.cancel(false);
        }
        try {
            s.tick = scheduler.schedule(() -> tick(s), delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            s.tick = null;
        }
    }

    private void sendKeepAlive(LeaseSession s, long now) {
        long seq = ++s.keepAliveSeq;
        s.keepAliveInFlight = true;
        s.keepAliveSentAt = now;
        CompletableFuture<LeaseKeepAliveResponse> f;
        try {
            f = leases.keepAliveOnce(s.id);
        } catch (RuntimeException e) {
            onKeepAlive(s, seq, now, null, e);
            return;
        }
        f.whenComplete((r, t) -> {
            try {
                scheduler.execute(() -> onKeepAlive(s, seq, now, r, t));
            } catch (RejectedExecutionException closing) {
                // closed: nothing to keep alive
            }
        });
    }

    private void onKeepAlive(LeaseSession s, long seq, long sentAt, LeaseKeepAliveResponse r, Throwable t) {
        if (closed || !s.alive()) {
            return;
        }
        if (seq == s.keepAliveSeq) {
            s.keepAliveInFlight = false;
        }
        long now = System.nanoTime();
        if (t == null && r.getTTL() > 0) {
            s.confirm(sentAt, r.getTTL());
            if (seq == s.keepAliveSeq) {
                s.nextKeepAliveAt = sentAt + s.ttlNanos / 3;
            }
        } else if (t == null || EtcdCalls.isLeaseNotFound(t)) {
            die(s, s + " expired or was revoked: the server no longer knows it", false);
            return;
        } else {
            log.debug("keep-alive of {} on {} failed; retrying", s, calls.backend(), t);
            if (seq == s.keepAliveSeq) {
                s.nextKeepAliveAt =
                        now + Math.max(MIN_RETRY_NANOS, Math.min(TimeUnit.MILLISECONDS.toNanos(250), s.ttlNanos / 10));
            }
        }
        tick(s);
    }

    /** A request learned that the server no longer has this lease: stop using it now, report on the timer thread. */
    void sessionGone(LeaseSession s, String detail) {
        if (!s.markDead(detail)) {
            return;
        }
        clearCurrent(s);
        try {
            scheduler.execute(() -> reportDeath(s, detail, false));
        } catch (RejectedExecutionException closing) {
            // closed: the core has ended every grant already
        }
    }

    private void die(LeaseSession s, String detail, boolean revoke) {
        if (!s.markDead(detail)) {
            return;
        }
        clearCurrent(s);
        reportDeath(s, detail, revoke);
    }

    private void clearCurrent(LeaseSession s) {
        lock.lock();
        try {
            if (current != null && current.isDone() && !current.isCompletedExceptionally() && current.join() == s) {
                current = null;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reports a dead lease: every grant on it is SESSION_LOST, its waiters wake, and (if the server may still
     * have it) it is revoked in the background so its keys are freed now rather than at expiry.
     */
    private void reportDeath(LeaseSession s, String detail, boolean revoke) {
        if (s.tick != null) {
            s.tick.cancel(false);
        }
        log.warn(
                "etcd {} on {} is lost: {}; {} lock(s) held on it are reported lost",
                s,
                calls.backend(),
                detail,
                s.grants.size());
        List<HeldKey> lost = new ArrayList<>(s.grants);
        s.grants.clear();
        // Said once: a grant returned to the core but not registered with it yet is covered by the core, which
        // keeps a loss reported for an unknown (name, owner) and applies it when that grant registers.
        tell(lost, detail);
        for (Runnable w : s.deathWatchers) {
            w.run();
        }
        onDeath.accept(s);
        if (revoke) {
            revokeInBackground(s, System.nanoTime() + s.ttlNanos + calls.timeoutNanos());
        }
    }

    private void tell(List<HeldKey> lost, String detail) {
        GrantLossSink out = sink;
        if (out == null) {
            return;
        }
        for (HeldKey h : lost) {
            out.grantLost(h.name(), h.owner(), LockLoss.Reason.SESSION_LOST, detail, null);
        }
    }

    private void revokeInBackground(LeaseSession s, long giveUpAt) {
        if (closed || System.nanoTime() - giveUpAt >= 0) {
            return; // by now it has expired on the server anyway
        }
        leases.revoke(s.id).whenComplete((r, t) -> {
            if (t != null && !EtcdCalls.isLeaseNotFound(t)) {
                try {
                    scheduler.schedule(() -> revokeInBackground(s, giveUpAt), 250, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException closing) {
                    // closed
                }
            }
        });
    }

    /** Stops keeping the lease alive; with {@code revoke}, revokes it so every key on it goes at once. */
    void close(boolean revoke) {
        LeaseSession s = null;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (current != null) {
                current.cancel(false);
                if (current.isDone() && !current.isCompletedExceptionally()) {
                    s = current.join();
                }
            }
            current = null;
        } finally {
            lock.unlock();
        }
        scheduler.shutdownNow();
        if (s != null) {
            s.markDead("the backend was closed");
            for (Runnable w : s.deathWatchers) {
                w.run();
            }
            if (revoke) {
                try {
                    calls.await(leases.revoke(s.id), "revoking this client's lease on close", null);
                } catch (RuntimeException e) {
                    if (!EtcdCalls.isLeaseNotFound(e)) {
                        log.warn(
                                "Could not revoke {} on {} while closing; its locks expire with it within its TTL",
                                s,
                                calls.backend(),
                                e);
                    }
                }
            }
        }
    }

    @Override
    public void close() {
        close(true);
    }
}

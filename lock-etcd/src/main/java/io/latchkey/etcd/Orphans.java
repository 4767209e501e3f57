package io.latchkey.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.latchkey.spi.DaemonThreads;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Contender keys this client must delete but could not (the request failed or its outcome is unknown): a
 * busy tryAcquire's key, a timed-out waiter's key, a release that did not reach etcd. Because the lease is
 * kept alive, such a key would otherwise stay queued forever and, once lowest, hold the lock for nobody.
 * They are retried in the background until deleted or until their lease is gone.
 *
 * Concurrency design. A key is either pending here or being contended for, never both: a contender first
 * claims its key (removing it from here), and the sweeper deletes a key only while holding the key's
 * stripe lock and only if it is still pending, so a retried acquisition that adopts its own earlier key can
 * never have that key deleted under it. The sweeper runs on its own daemon thread, created at first need,
 * so blocking deletes never delay the lease keeper's timers.
 */
final class Orphans implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Orphans.class);
    private static final int STRIPES = 64;

    /** A key to delete: by create revision if known, else only if its value is still {@code owner}. */
    record Orphan(String name, ByteSequence key, long revision, String owner, long leaseId) {}

    private final KV kv;
    private final EtcdCalls calls;
    private final ConcurrentHashMap<ByteSequence, Orphan> pending = new ConcurrentHashMap<>();
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    private final ReentrantLock sweeperLock = new ReentrantLock();
    private ScheduledThreadPoolExecutor sweeper; // guarded by sweeperLock
    private boolean sweepScheduled; // guarded by sweeperLock
    private volatile boolean closed;

    Orphans(KV kv, EtcdCalls calls) {
        this.kv = kv;
        this.calls = calls;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    void add(Orphan o) {
        if (closed) {
            return;
        }
        pending.put(o.key(), o);
        log.debug(
                "will retry deleting contender key of lock '{}' (revision {}) on {}",
                o.name(),
                o.revision(),
                calls.backend());
        scheduleSweep(200);
    }

    /** Takes a key back for a new contention; waits if the sweeper is deleting it right now. */
    void claim(ByteSequence key) {
        if (pending.isEmpty()) {
            return;
        }
        ReentrantLock l = stripe(key);
        l.lock();
        try {
            pending.remove(key);
        } finally {
            l.unlock();
        }
    }

    /** Keys on a dead lease are gone (or go with it): nothing to delete. */
    void forgetLease(long leaseId) {
        pending.values().removeIf(o -> o.leaseId() == leaseId);
    }

    int size() {
        return pending.size();
    }

    private ReentrantLock stripe(ByteSequence key) {
        return stripes[(key.hashCode() & 0x7fffffff) % STRIPES];
    }

    private void scheduleSweep(long delayMillis) {
        sweeperLock.lock();
        try {
            if (closed || sweepScheduled) {
                return;
            }
            if (sweeper == null) {
                sweeper = new ScheduledThreadPoolExecutor(1, DaemonThreads.single("latchkey-etcd-cleanup"));
            }
            sweepScheduled = true;
            sweeper.schedule(this::sweep, delayMillis, TimeUnit.MILLISECONDS);
        } finally {
            sweeperLock.unlock();
        }
    }

    private void sweep() {
        sweeperLock.lock();
        try {
            sweepScheduled = false;
        } finally {
            sweeperLock.unlock();
        }
        for (Orphan o : pending.values()) {
            if (closed) {
                return;
            }
            ReentrantLock l = stripe(o.key());
            l.lock();
            try {
                if (pending.get(o.key()) != o) {
                    continue; // claimed by a contender, or replaced
                }
                Cmp condition = o.revision() > 0
                        ? new Cmp(o.key(), Cmp.Op.EQUAL, CmpTarget.createRevision(o.revision()))
                        : new Cmp(
                                o.key(),
                                Cmp.Op.EQUAL,
                                CmpTarget.value(ByteSequence.from(o.owner(), StandardCharsets.UTF_8)));
                calls.await(
                        kv.txn()
                                .If(condition)
                                .Then(Op.delete(o.key(), DeleteOption.DEFAULT))
                                .commit(),
                        "deleting a leftover contender key",
                        o.name());
                pending.remove(o.key(), o);
            } catch (RuntimeException e) {
                log.debug(
                        "could not delete leftover contender key of lock '{}' on {} yet", o.name(), calls.backend(), e);
            } finally {
                l.unlock();
            }
        }
        if (!pending.isEmpty()) {
            scheduleSweep(500);
        }
    }

    @Override
    public void close() {
        closed = true;
        sweeperLock.lock();
        try {
            if (sweeper != null) {
                sweeper.shutdownNow();
            }
        } finally {
            sweeperLock.unlock();
        }
        pending.clear();
    }
}

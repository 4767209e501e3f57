package io.latchkey.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.latchkey.BackendUnavailableException;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The acquire protocol (docs/design.md section 6, etcd).
 *
 * 1. One transaction: if this lease's key for the name is absent, put it (value = owner id, on the lease)
 *    and read, in the same transaction, the lowest create revision under the name's prefix (the holder)
 *    and the two newest keys (this one and its predecessor). Else read the existing key and the holder.
 *    The lowest create revision holds the lock; the fencing token is that create revision.
 * 2. Not lowest and not allowed to wait: delete the key (second request) and answer Busy.
 * 3. Waiting: watch only the predecessor's key, from the current revision (a synced watch, see
 *    EtcdWaiting), confirm the predecessor still exists, sleep until it is deleted, then re-read with one
 *    transaction that also checks this waiter's own key still exists with its create revision. A waiter
 *    whose key vanished (its lease expired or was revoked while it waited) is never granted: etcd issue
 *    11456, where a waiter saw no lower keys and took the lock although its own key was gone.
 *
 * Uncontended acquire + release is two requests: the transaction of step 1 and the release's conditional
 * delete. Stateless apart from collaborators; thread-safe (the core sends one contender per name per client).
 */
final class Contention {
    private static final Logger log = LoggerFactory.getLogger(Contention.class);
    private static final GetOption LOWEST = GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.ASCEND)
            .withLimit(1)
            .build();
    private static final GetOption NEWEST_TWO = GetOption.builder()
            .isPrefix(true)
            .withKeysOnly(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.DESCEND)
            .withLimit(2)
            .build();

    private final KV kv;
    private final Watch watch;
    private final LockKeys keys;
    private final EtcdRenewal keeper;
    private final Orphans orphans;
    private final EtcdCalls calls;
    private final long recheckNanos;

    Contention(
            KV kv, Watch watch, LockKeys keys, EtcdRenewal keeper, Orphans orphans, EtcdCalls calls, Duration recheck) {
        this.kv = kv;
        this.watch = watch;
        this.keys = keys;
        this.keeper = keeper;
        this.orphans = orphans;
        this.calls = calls;
        this.recheckNanos = recheck.toNanos();
    }

    private record KeyRev(ByteSequence key, long revision) {}

    /** The answer of step 1: this contender's create revision, the holder, and the predecessor if known. */
    private record Queued(long myRevision, KeyValue lowest, KeyRev predecessor) {}

    /** A re-read of the queue: whether this waiter's key still exists, and the key just below it (null: none). */
    private record Check(boolean mine, KeyRev predecessor) {}

    /**
     * @param waitNanos 0 for one attempt; else how long to wait in the queue
     */
    AcquireResult acquire(AcquireRequest req, long waitNanos) throws InterruptedException {
        long deadline = deadline(waitNanos);
        return onLiveLease(keeper, s -> acquireOn(s, req, waitNanos > 0, deadline));
    }

    static long deadline(long waitNanos) {
        return System.nanoTime() + Math.min(waitNanos, Long.MAX_VALUE / 4);
    }

    /** One acquisition on the client's lease of the moment. */
    interface LeaseAttempt {
        AcquireResult run(LeaseSession s) throws InterruptedException;
    }

    /** Runs {@code attempt} on the current lease; once more on a new lease if the lease was found gone. */
    static AcquireResult onLiveLease(EtcdRenewal keeper, LeaseAttempt attempt) throws InterruptedException {
        for (int round = 0; ; round++) {
            LeaseSession s = keeper.session();
            try {
                return attempt.run(s);
            } catch (EtcdCalls.LeaseGone e) {
                keeper.sessionGone(s, e.getMessage());
                if (round > 0) {
                    throw e;
                }
            }
        }
    }

    private AcquireResult acquireOn(LeaseSession s, AcquireRequest req, boolean mayWait, long deadline)
            throws InterruptedException {
        String name = req.name();
        ByteSequence key = keys.contender(name, s.id);
        ByteSequence prefix = keys.namePrefix(name);
        long start = System.nanoTime();
        orphans.claim(key);
        Queued q = contend(s, req, key, prefix);
        KeyValue lowest = q.lowest();
        if (lowest != null
                && lowest.getCreateRevision() == q.myRevision()
                && lowest.getKey().equals(key)) {
            return grant(s, req, key, q.myRevision(), start);
        }
        if (lowest != null && lowest.getValue().equals(bytes(req.owner()))) {
            // an earlier attempt of this very acquisition (same owner id) holds the lock through another client
            remove(s, name, key, q.myRevision(), req.owner());
            long token = lowest.getCreateRevision();
            long until = foreignValidUntil(lowest.getLease(), start, req.lease(), name);
            if (until - System.nanoTime() <= 0) {
                return Busy.UNKNOWN; // that lease is ending: the retry takes the lock on its own lease once it has
            }
            return new Grant(
                    name, req.owner(), token, until, new HeldKey(name, req.owner(), lowest.getKey(), token, null));
        }
        Busy busy = busy(lowest);
        if (!mayWait || System.nanoTime() - deadline >= 0) {
            remove(s, name, key, q.myRevision(), req.owner());
            return busy;
        }
        boolean leftCleanly = false;
        try {
            AcquireResult r = waitInQueue(s, req, key, prefix, q.myRevision(), q.predecessor(), deadline, busy);
            leftCleanly = true;
            return r;
        } finally {
            if (!leftCleanly) {
                remove(s, name, key, q.myRevision(), req.owner()); // interrupted or failed: leave nothing queued
            }
        }
    }

    /** Step 1; retried only to clear a leftover key of an earlier acquisition of this client. */
    private Queued contend(LeaseSession s, AcquireRequest req, ByteSequence key, ByteSequence prefix) {
        ByteSequence owner = bytes(req.owner());
        for (int round = 0; ; round++) {
            TxnResponse r;
            try {
                r = calls.await(
                        kv.txn()
                                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                                .Then(
                                        Op.put(
                                                key,
                                                owner,
                                                PutOption.builder()
                                                        .withLeaseId(s.id)
                                                        .build()),
                                        Op.get(prefix, LOWEST),
                                        Op.get(prefix, NEWEST_TWO))
                                .Else(Op.get(key, GetOption.DEFAULT), Op.get(prefix, LOWEST))
                                .commit(),
                        "acquiring",
                        req.name());
            } catch (EtcdCalls.LeaseGone e) {
                throw e; // nothing was written
            } catch (RuntimeException e) {
                // the key may or may not exist now: delete it later unless this acquisition retries and adopts it
                orphans.add(new Orphans.Orphan(req.name(), key, 0, req.owner(), s.id));
                throw e;
            }
            List<GetResponse> gets = r.getGetResponses();
            if (r.isSucceeded()) {
                List<KeyValue> newest = gets.get(1).getKvs();
                KeyRev pred = newest.size() > 1
                        ? new KeyRev(newest.get(1).getKey(), newest.get(1).getCreateRevision())
                        : null;
                return new Queued(newest.get(0).getCreateRevision(), first(gets.get(0)), pred);
            }
            KeyValue mine = first(gets.get(0));
            if (mine != null && mine.getValue().equals(owner)) {
                return new Queued(mine.getCreateRevision(), first(gets.get(1)), null); // a retry: same queue place
            }
            if (mine != null) {
                // a leftover of an earlier acquisition by this client (a delete that never arrived): queue afresh
                deleteIfRevision(key, mine.getCreateRevision(), req.name());
            }
            if (round >= 3) {
                throw new BackendUnavailableException(
                        "could not queue for lock '" + req.name() + "' on " + calls.backend()
                                + ": this client's key kept changing under it",
                        req.name(),
                        calls.backend(),
                        null);
            }
        }
    }

    /** Step 3. Returns a grant, or Busy after removing the key (timeout) or finding it gone (lease lost). */
    private AcquireResult waitInQueue(
            LeaseSession s,
            AcquireRequest req,
            ByteSequence key,
            ByteSequence prefix,
            long myRev,
            KeyRev firstPredecessor,
            long deadline,
            Busy busy)
            throws InterruptedException {
        String name = req.name();
        KeyRev pred = firstPredecessor;
        long checkStart = System.nanoTime();
        if (pred == null) {
            Check c = check(key, myRev, prefix, name);
            if (!c.mine()) {
                return vanished(s, name, myRev);
            }
            if (c.predecessor() == null) {
                return grant(s, req, key, myRev, checkStart);
            }
            pred = c.predecessor();
        }
        for (; ; ) {
            try (EtcdWaiting w = new EtcdWaiting(watch, pred.key(), false, s)) {
                long left = deadline - System.nanoTime();
                if (w.awaitCreated(Math.max(0, Math.min(calls.timeoutNanos(), left)))) {
                    // the watch is live: a delete from now on wakes us; one before it shows in this read
                    checkStart = System.nanoTime();
                    Check c = check(key, myRev, prefix, name);
                    if (!c.mine()) {
                        return vanished(s, name, myRev);
                    }
                    if (c.predecessor() == null) {
                        return grant(s, req, key, myRev, checkStart);
                    }
                    if (!c.predecessor().equals(pred)) {
                        pred = c.predecessor();
                        continue;
                    }
                    left = deadline - System.nanoTime();
                    if (left > 0) {
                        w.awaitWake(Math.min(left, recheckNanos));
                    }
                } else {
                    w.pauseBeforeReread(deadline); // the watch failed or was not confirmed (no leader?)
                }
            }
            checkStart = System.nanoTime();
            Check c = check(key, myRev, prefix, name);
            if (!c.mine()) {
                return vanished(s, name, myRev);
            }
            if (c.predecessor() == null) {
                return grant(s, req, key, myRev, checkStart);
            }
            if (System.nanoTime() - deadline >= 0) {
                remove(s, name, key, myRev, req.owner());
                return busy;
            }
            pred = c.predecessor();
        }
    }

    /** Reads, in one transaction, whether this key still exists with its revision, and the key just below it. */
    private Check check(ByteSequence key, long myRev, ByteSequence prefix, String name) {
        GetOption below = GetOption.builder()
                .isPrefix(true)
                .withKeysOnly(true)
                .withLimit(1)
                .withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND)
                .withMaxCreateRevision(myRev - 1)
                .build();
        TxnResponse r = calls.await(
                kv.txn()
                        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(myRev)))
                        .Then(Op.get(prefix, below))
                        .commit(),
                "waiting",
                name);
        if (!r.isSucceeded()) {
            return new Check(false, null);
        }
        KeyValue p = first(r.getGetResponses().get(0));
        return new Check(true, p == null ? null : new KeyRev(p.getKey(), p.getCreateRevision()));
    }

    AcquireResult grant(LeaseSession s, AcquireRequest req, ByteSequence key, long revision, long startNanos) {
        HeldKey held = new HeldKey(req.name(), req.owner(), key, revision, s);
        s.grants.add(held);
        if (!s.alive()) {
            // the lease died under us: its loss report may have missed this grant, so do not make it
            s.grants.remove(held);
            remove(s, req.name(), key, revision, req.owner());
            return Busy.UNKNOWN;
        }
        return new Grant(req.name(), req.owner(), revision, validUntil(s, startNanos, req.lease()), held, req.kind());
    }

    AcquireResult vanished(LeaseSession s, String name, long myRev) {
        log.info(
                "The queue key (revision {}) of a waiter for lock '{}' on {} vanished while it waited ({}); it is not"
                        + " granted the lock and queues again",
                myRev,
                name,
                calls.backend(),
                s.alive() ? "removed by someone else" : s.deathDetail());
        return Busy.UNKNOWN;
    }

    /** Deletes this contender's key; if that fails, the key is left to the background cleanup. */
    void remove(LeaseSession s, String name, ByteSequence key, long revision, String owner) {
        try {
            deleteIfRevision(key, revision, name);
        } catch (RuntimeException e) {
            orphans.add(new Orphans.Orphan(name, key, revision, owner, s.id));
        }
    }

    private boolean deleteIfRevision(ByteSequence key, long revision, String name) {
        return calls.await(
                        kv.txn()
                                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(revision)))
                                .Then(Op.delete(key, DeleteOption.DEFAULT))
                                .commit(),
                        "removing a queue key",
                        name)
                .isSucceeded();
    }

    /**
     * Validity of a grant on a key of another client's lease (the same owner's earlier attempt): the lock's lease,
     * but never past what etcd says that lease still lives, since this client does not keep it alive.
     */
    long foreignValidUntil(long leaseId, long startNanos, Duration lease, String name) {
        long byLease = startNanos + lease.toNanos();
        long byForeignLease = keeper.foreignLeaseEnd(leaseId, startNanos, name);
        return byForeignLease - byLease < 0 ? byForeignLease : byLease;
    }

    /**
     * Validity of a grant proven at {@code startNanos}: the lock's lease from then, on the local monotonic clock, but
     * never beyond the end the keeper has confirmed for the etcd lease the key is bound to (send time of the last
     * answered keep-alive + TTL - drift). The key dies with that lease, and a holder whose process was paused
     * cannot have kept it alive: a validity past the confirmed end would outlive the key (the TCK's SIGSTOP rule
     * caught the other client granted 129 ms before the paused holder's validity ran out). Without a session
     * (a downgrade of a key another client made) only the lease bounds it; a grant on such a key is made by
     * {@link #foreignValidUntil}.
     */
    static long validUntil(LeaseSession s, long startNanos, Duration lease) {
        long byLease = startNanos + lease.toNanos();
        if (s == null) {
            return byLease;
        }
        long confirmed = s.confirmedUntil();
        return confirmed - byLease < 0 ? confirmed : byLease;
    }

    private static Busy busy(KeyValue lowest) {
        return lowest == null
                ? Busy.UNKNOWN
                : new Busy(lowest.getValue().toString(StandardCharsets.UTF_8), lowest.getCreateRevision(), null);
    }

    static KeyValue first(GetResponse r) {
        List<KeyValue> kvs = r.getKvs();
        return kvs.isEmpty() ? null : kvs.get(0);
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
}

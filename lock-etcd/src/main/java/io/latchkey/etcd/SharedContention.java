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
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.SemaphoreCounts;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/*
 * The acquire protocol of read-write locks and semaphores (docs/design.md section 6, etcd): the lock's queue
 * (Contention) with another admission rule, on keys of their own (LockKeys).
 *
 * 1. One transaction puts this acquisition's key on the client's lease, if absent, and reads what stands in
 *    its way: a writer reads the two newest keys of the queue (itself and its predecessor); a reader reads the
 *    newest writer (any writer key is older than the reader's); a semaphore contender reads the whole queue
 *    with its permit counts. Its create revision (the transaction's revision) is the fencing token.
 * 2. Admitted: a writer with no key ahead; a reader with no writer ahead (so a waiting writer keeps later
 *    readers out); a semaphore contender when the permits asked up to and including it fit (first come, first
 *    served). Not admitted and not allowed to wait: delete the key and answer Busy.
 * 3. Waiting: watch the blocker from the current revision (a writer: its predecessor; a reader: the nearest
 *    writer ahead; a semaphore contender: deletes anywhere under the queue's prefix), re-read with a
 *    transaction that also checks this key still exists, as the lock does (Contention.check).
 *
 * Uncontended acquire + release is two requests, as for the lock. Stateless apart from collaborators.
 */
final class SharedContention {
    private static final GetOption NEWEST_TWO = GetOption.builder()
            .isPrefix(true)
            .withKeysOnly(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.DESCEND)
            .withLimit(2)
            .build();
    private static final GetOption NEWEST = GetOption.builder()
            .isPrefix(true)
            .withKeysOnly(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.DESCEND)
            .withLimit(1)
            .build();
    private static final GetOption IN_ORDER = GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.ASCEND)
            .build();

    private final KV kv;
    private final Watch watch;
    private final LockKeys keys;
    private final EtcdRenewal keeper;
    private final Orphans orphans;
    private final EtcdCalls calls;
    private final Contention queue;
    private final long recheckNanos;

    SharedContention(
            KV kv,
            Watch watch,
            LockKeys keys,
            EtcdRenewal keeper,
            Orphans orphans,
            EtcdCalls calls,
            Contention queue,
            Duration recheck) {
        this.kv = kv;
        this.watch = watch;
        this.keys = keys;
        this.keeper = keeper;
        this.orphans = orphans;
        this.calls = calls;
        this.queue = queue;
        this.recheckNanos = recheck.toNanos();
    }

    /**
     * What keeps a contender out: nothing ({@link #ADMITTED}), one key's existence, or (a semaphore) the queue.
     */
    private record Blocker(ByteSequence key, boolean wholeQueue) {}

    private static final Blocker ADMITTED = new Blocker(null, false);

    /** @param waitNanos 0 for one attempt; else how long to wait in the queue */
    AcquireResult acquire(AcquireRequest req, long waitNanos) throws InterruptedException {
        long deadline = Contention.deadline(waitNanos);
        return Contention.onLiveLease(keeper, s -> acquireOn(s, req, waitNanos > 0, deadline));
    }

    private AcquireResult acquireOn(LeaseSession s, AcquireRequest req, boolean mayWait, long deadline)
            throws InterruptedException {
        ByteSequence key = keys.sharedContender(req.kind(), req.name(), s.id, req.owner());
        long start = System.nanoTime();
        orphans.claim(key);
        TxnResponse r;
        try {
            r = calls.await(
                    kv.txn()
                            .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                            .Then(
                                    Op.put(
                                            key,
                                            value(req),
                                            PutOption.builder()
                                                    .withLeaseId(s.id)
                                                    .build()),
                                    firstRead(req))
                            .Else(Op.get(key, GetOption.DEFAULT))
                            .commit(),
                    "acquiring",
                    req.name());
        } catch (EtcdCalls.LeaseGone e) {
            throw e; // nothing was written
        } catch (RuntimeException e) {
            orphans.add(new Orphans.Orphan(req.name(), key, 0, req.owner(), s.id));
            throw e;
        }
        long myRev;
        Blocker blocker;
        if (r.isSucceeded()) {
            myRev = r.getHeader().getRevision(); // the transaction's revision: the put's create revision
            blocker = blocker(req, key, myRev, r.getGetResponses(), s);
        } else {
            KeyValue mine = Contention.first(r.getGetResponses().get(0));
            if (mine == null) {
                return Busy.UNKNOWN; // it vanished between the two halves of the transaction: the core retries
            }
            myRev = mine.getCreateRevision(); // a retried request of this acquisition: its queue place
            blocker = null;
        }
        if (blocker == ADMITTED) {
            return queue.grant(s, req, key, myRev, start);
        }
        if (blocker != null && (!mayWait || System.nanoTime() - deadline >= 0)) {
            queue.remove(s, req.name(), key, myRev, req.owner());
            return Busy.UNKNOWN;
        }
        boolean leftCleanly = false;
        try {
            AcquireResult result = waitInQueue(s, req, key, myRev, blocker, mayWait ? deadline : start);
            leftCleanly = true;
            return result;
        } finally {
            if (!leftCleanly) {
                queue.remove(s, req.name(), key, myRev, req.owner()); // interrupted or failed: leave nothing queued
            }
        }
    }

    /** Step 3: a grant, or Busy after removing the key (time is up) or finding it gone (lease lost). */
    private AcquireResult waitInQueue(
            LeaseSession s, AcquireRequest req, ByteSequence key, long myRev, Blocker first, long deadline)
            throws InterruptedException {
        Blocker blocker = first;
        for (; ; ) {
            if (blocker == null) { // not known yet: read it
                long checkStart = System.nanoTime();
                TxnResponse c = check(req, key, myRev);
                if (!c.isSucceeded()) {
                    return queue.vanished(s, req.name(), myRev);
                }
                blocker = blocker(req, key, myRev, c.getGetResponses(), s);
                if (blocker == ADMITTED) {
                    return queue.grant(s, req, key, myRev, checkStart);
                }
                if (System.nanoTime() - deadline >= 0) {
                    queue.remove(s, req.name(), key, myRev, req.owner());
                    return Busy.UNKNOWN;
                }
            }
            ByteSequence watched = blocker.wholeQueue() ? keys.sharedQueue(req.kind(), req.name()) : blocker.key();
            try (EtcdWaiting w = new EtcdWaiting(watch, watched, blocker.wholeQueue(), s)) {
                long left = deadline - System.nanoTime();
                if (w.awaitCreated(Math.max(0, Math.min(calls.timeoutNanos(), left)))) {
                    // the watch is live: a delete from now on wakes us; one before it shows in this read
                    long checkStart = System.nanoTime();
                    TxnResponse c = check(req, key, myRev);
                    if (!c.isSucceeded()) {
                        return queue.vanished(s, req.name(), myRev);
                    }
                    Blocker now = blocker(req, key, myRev, c.getGetResponses(), s);
                    if (now == ADMITTED) {
                        return queue.grant(s, req, key, myRev, checkStart);
                    }
                    if (!now.equals(blocker)) {
                        blocker = now;
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
            blocker = null; // read it again
        }
    }

    /** The read of step 1, inside the put's transaction. */
    private Op firstRead(AcquireRequest req) {
        return switch (req.kind().type()) {
            case WRITE -> Op.get(keys.sharedQueue(req.kind(), req.name()), NEWEST_TWO);
            case READ -> Op.get(keys.writers(req.name()), NEWEST);
            default -> Op.get(keys.sharedQueue(req.kind(), req.name()), IN_ORDER);
        };
    }

    /** Re-reads what stands in the way, in one transaction that first checks this key still exists. */
    private TxnResponse check(AcquireRequest req, ByteSequence key, long myRev) {
        GetOption.Builder o = GetOption.builder()
                .isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE)
                .withMaxCreateRevision(req.kind().type() == GrantKind.Type.PERMITS ? myRev : myRev - 1);
        ByteSequence range;
        if (req.kind().type() == GrantKind.Type.PERMITS) {
            range = keys.sharedQueue(req.kind(), req.name());
            o.withSortOrder(GetOption.SortOrder.ASCEND);
        } else {
            range = req.kind().type() == GrantKind.Type.READ
                    ? keys.writers(req.name())
                    : keys.sharedQueue(req.kind(), req.name());
            o.withKeysOnly(true).withSortOrder(GetOption.SortOrder.DESCEND).withLimit(1);
        }
        Op[] reads = req.kind().type() == GrantKind.Type.WRITE
                ? new Op[] {Op.get(range, o.build()), Op.get(keys.downgraded(req.name()), NEWEST)}
                : new Op[] {Op.get(range, o.build())};
        return calls.await(
                kv.txn()
                        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(myRev)))
                        .Then(reads)
                        .commit(),
                "waiting",
                req.name());
    }

    /**
     * What keeps this contender out, from a read of step 1 or 3. A semaphore queue made with another permit count
     * is refused: the key is removed and the caller gets {@link IllegalArgumentException}.
     */
    private Blocker blocker(AcquireRequest req, ByteSequence key, long myRev, List<GetResponse> reads, LeaseSession s) {
        List<KeyValue> kvs = reads.get(0).getKvs();
        switch (req.kind().type()) {
            case WRITE -> {
                for (KeyValue kv : kvs) {
                    if (!kv.getKey().equals(key)) {
                        return new Blocker(kv.getKey(), false); // the newest key ahead: the predecessor
                    }
                }
                // a writer ahead of this one may have been downgraded since: its reader key is newer than ours
                List<KeyValue> downgraded = reads.size() > 1 ? reads.get(1).getKvs() : List.of();
                return downgraded.isEmpty()
                        ? ADMITTED
                        : new Blocker(downgraded.get(0).getKey(), false);
            }
            case READ -> {
                return kvs.isEmpty() ? ADMITTED : new Blocker(kvs.get(0).getKey(), false);
            }
            default -> {
                GrantKind kind = req.kind();
                long asked = 0;
                for (KeyValue kv : kvs) {
                    int[] v = permitsAndLimit(kv);
                    if (v[1] != kind.limit()) {
                        queue.remove(s, req.name(), key, myRev, req.owner());
                        throw SemaphoreCounts.conflict(req.name(), calls.backend(), v[1], kind.limit());
                    }
                    if (kv.getCreateRevision() <= myRev) {
                        asked += v[0];
                    }
                }
                return asked <= kind.limit() ? ADMITTED : new Blocker(null, true);
            }
        }
    }

    /**
     * Turns the write grant into a read grant in one transaction: the writer's key goes and a downgraded reader's
     * key comes on the same lease. Readers ignore downgraded keys; writers wait for them whatever their revision
     * (see check), so no writer gets in between. Null if the write key was gone or its lease has changed.
     */
    Grant downgrade(HeldKey write, AcquireRequest read) {
        LeaseSession s = write.session();
        if (s == null || !s.alive()) {
            return null; // the lease of the write grant died (or is another client's): the grant went with it
        }
        ByteSequence key = keys.downgradedContender(read.name(), s.id, read.owner());
        long start = System.nanoTime();
        TxnResponse r = calls.await(
                kv.txn()
                        .If(new Cmp(write.key(), Cmp.Op.EQUAL, CmpTarget.createRevision(write.revision())))
                        .Then(
                                Op.delete(write.key(), DeleteOption.DEFAULT),
                                Op.put(
                                        key,
                                        value(read),
                                        PutOption.builder().withLeaseId(s.id).build()))
                        .commit(),
                "downgrading",
                read.name());
        if (!r.isSucceeded()) {
            return null;
        }
        s.grants.remove(write);
        HeldKey held = new HeldKey(read.name(), read.owner(), key, r.getHeader().getRevision(), s);
        s.grants.add(held);
        // the reader takes the writer's place, so it keeps the writer's token: writers already waiting have higher
        // ones (their keys are older than the downgraded key, whose revision only proves identity)
        return new Grant(
                read.name(),
                read.owner(),
                write.revision(),
                Contention.validUntil(s, start, read.lease()),
                held,
                read.kind());
    }

    /** The permits of semaphore {@code name} no holder has: the count minus the admitted prefix of the queue. */
    int availablePermits(String name, int limit) {
        GrantKind kind = GrantKind.permits(1, limit);
        GetResponse r = calls.await(kv.get(keys.sharedQueue(kind, name), IN_ORDER), "counting permits", name);
        long held = 0;
        boolean admitting = true;
        for (KeyValue kv : r.getKvs()) {
            int[] v = permitsAndLimit(kv);
            if (v[1] != limit) {
                throw SemaphoreCounts.conflict(name, calls.backend(), v[1], limit);
            }
            admitting = admitting && held + v[0] <= limit; // the first that does not fit waits, and all behind it
            held += admitting ? v[0] : 0;
        }
        return (int) (limit - held);
    }

    /** A semaphore key's value: {permits, limit}. */
    private static int[] permitsAndLimit(KeyValue kv) {
        String v = kv.getValue().toString(StandardCharsets.US_ASCII);
        int slash = v.indexOf('/');
        return new int[] {Integer.parseInt(v.substring(0, slash)), Integer.parseInt(v.substring(slash + 1))};
    }

    private static ByteSequence value(AcquireRequest req) {
        String v = req.kind().type() == GrantKind.Type.PERMITS
                ? req.kind().permits() + "/" + req.kind().limit()
                : req.owner();
        return ByteSequence.from(v, StandardCharsets.UTF_8);
    }
}

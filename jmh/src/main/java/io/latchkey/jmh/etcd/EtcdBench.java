package io.latchkey.jmh.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.support.CloseableClient;
import io.etcd.jetcd.watch.WatchEvent;
import io.grpc.stub.StreamObserver;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.etcd.fixtures.EtcdCluster;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Shared pieces of the etcd benchmarks: a real etcd member started by the test fixture (data on tmpfs,
 * fsync on; see {@link EtcdCluster}), Latchkey clients, jetcd clients with a kept-alive lease for jetcd's own
 * Lock service, the raw-protocol baseline, and a recorder of release-to-acquire hand-off gaps.
 */
final class EtcdBench {
    private EtcdBench() {}

    static LockClient latchkey(EtcdCluster etcd) {
        return Latchkey.connect(etcd.uri(), Map.of("leaseTtl", "30s"));
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    /** A jetcd client and one lease kept alive by jetcd (what jetcd's Lock service needs). */
    static final class JetcdSession implements AutoCloseable {
        final Client client;
        final long lease;
        private final CloseableClient keepAlive;

        JetcdSession(EtcdCluster etcd) throws Exception {
            client = etcd.newClient();
            lease = client.getLeaseClient().grant(30).get(10, TimeUnit.SECONDS).getID();
            keepAlive = client.getLeaseClient().keepAlive(lease, new StreamObserver<LeaseKeepAliveResponse>() {
                @Override
                public void onNext(LeaseKeepAliveResponse r) {}

                @Override
                public void onError(Throwable t) {}

                @Override
                public void onCompleted() {}
            });
        }

        @Override
        public void close() throws Exception {
            keepAlive.close();
            client.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
            client.close();
        }
    }

    /**
     * The raw-protocol floor: create the key only if absent (one transaction, on a lease), delete it to release.
     * When busy, watch the key from the current revision (a synced watch), retry once the watch is live (the
     * key may have gone meanwhile), else wait for its delete and retry. Not fair, and every waiter wakes at
     * each release; no fencing read, no owner check.
     */
    static final class RawLock {
        private final KV kv;
        private final Watch watch;
        private final ByteSequence key;
        private final ByteSequence value;
        private final long lease;
        private static final WatchOption DELETES =
                WatchOption.builder().withNoPut(true).withCreateNotify(true).build();

        RawLock(Client client, String key, String value, long lease) {
            this.kv = client.getKVClient();
            this.watch = client.getWatchClient();
            this.key = bytes(key);
            this.value = bytes(value);
            this.lease = lease;
        }

        boolean tryLock() throws Exception {
            TxnResponse r = kv.txn()
                    .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.version(0)))
                    .Then(Op.put(
                            key, value, PutOption.builder().withLeaseId(lease).build()))
                    .commit()
                    .get(10, TimeUnit.SECONDS);
            return r.isSucceeded();
        }

        void lock() throws Exception {
            while (!tryLock()) {
                CompletableFuture<Void> created = new CompletableFuture<>();
                CompletableFuture<Void> deleted = new CompletableFuture<>();
                try (Watch.Watcher w = watch.watch(key, DELETES, Watch.listener(resp -> {
                    if (resp.isCreatedNotify()) {
                        created.complete(null);
                    }
                    for (WatchEvent e : resp.getEvents()) {
                        if (e.getEventType() == WatchEvent.EventType.DELETE) {
                            deleted.complete(null);
                        }
                    }
                }))) {
                    created.get(10, TimeUnit.SECONDS);
                    if (tryLock()) {
                        return;
                    }
                    deleted.get(60, TimeUnit.SECONDS);
                }
            }
        }

        void unlock() throws Exception {
            kv.delete(key, DeleteOption.DEFAULT).get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Release-to-acquire gaps of a contended lock: a holder stamps the time just before it releases, the next
     * holder measures the gap just after its acquire returned. Printed as p50/p99 at the end of a trial.
     */
    static final class HandoffGaps {
        private final ReentrantLock lock = new ReentrantLock();
        private long[] gaps = new long[1 << 16];
        private int size;
        private volatile long releasedAt;

        void beforeRelease() {
            releasedAt = System.nanoTime();
        }

        void afterAcquire() {
            long at = releasedAt;
            if (at == 0) {
                return;
            }
            long gap = System.nanoTime() - at;
            lock.lock();
            try {
                if (size == gaps.length) {
                    gaps = Arrays.copyOf(gaps, size * 2);
                }
                gaps[size++] = gap;
            } finally {
                lock.unlock();
            }
        }

        String summary(String what) {
            lock.lock();
            try {
                if (size == 0) {
                    return what + ": no hand-offs recorded";
                }
                long[] s = Arrays.copyOf(gaps, size);
                Arrays.sort(s);
                return String.format(
                        "%s: %d hand-offs, release-to-acquire p50 %.2f ms, p90 %.2f ms, p99 %.2f ms",
                        what,
                        size,
                        s[size / 2] / 1e6,
                        s[(int) (size * 0.90)] / 1e6,
                        s[Math.min(size - 1, (int) (size * 0.99))] / 1e6);
            } finally {
                lock.unlock();
            }
        }

        void reset() {
            lock.lock();
            try {
                size = 0;
                releasedAt = 0;
            } finally {
                lock.unlock();
            }
        }
    }

    static final AtomicInteger IDS = new AtomicInteger();
}

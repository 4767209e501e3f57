package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.etcd.fixtures.EtcdCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** docs/design.md section 8: an uncontended acquire + release costs etcd two requests, counted on the wire. */
class RoundTripCountTest {
    private static EtcdCluster etcd;

    @BeforeAll
    static void start() {
        etcd = EtcdCluster.single();
    }

    @AfterAll
    static void stop() {
        if (etcd != null) {
            etcd.close();
        }
    }

    /** Records every gRPC call the jetcd client starts (unary requests and streams alike). */
    static final class CallCounter implements ClientInterceptor {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());

        @Override
        public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            calls.add(method.getFullMethodName());
            return next.newCall(method, options);
        }

        List<String> drain() {
            synchronized (calls) {
                List<String> out = new ArrayList<>(calls);
                calls.clear();
                return out;
            }
        }
    }

    /** A jetcd client on the test's member whose every call {@code counter} records. */
    private static Client countedClient(CallCounter counter) {
        return Client.builder()
                .endpoints(etcd.endpoints().toArray(String[]::new))
                .interceptor(counter)
                .build();
    }

    /** Locks on {@code client} with a 60 s client lease: no keep-alive falls inside a measurement. */
    private static LockClient onLongLease(Client client) {
        return Latchkey.client(
                EtcdLockBackend.builder(client).leaseTtl(Duration.ofSeconds(60)).build());
    }

    @Test
    @DisplayName(
            "uncontended acquire + release: one transaction (that also reads the holder) and one delete, no lease grant")
    void uncontendedCycleIsTwoRequests() {
        CallCounter counter = new CallCounter();
        try (Client client = countedClient(counter);
                LockClient locks = onLongLease(client)) {
            String name = "round-trips/" + System.nanoTime();
            locks.lock(name).tryAcquire().orElseThrow().release(); // first use: the lease grant, made once
            await().atMost(Duration.ofSeconds(5)).until(() -> counter.calls.contains("etcdserverpb.Lease/LeaseGrant"));
            counter.drain();

            int cycles = 50;
            for (int i = 0; i < cycles; i++) {
                Optional<LockHandle> h = locks.lock(name).tryAcquire();
                assertThat(h).isPresent();
                assertThat(counter.drain()).as("acquire of cycle %d", i).containsExactly("etcdserverpb.KV/Txn");
                assertThat(h.get().release()).isTrue();
                assertThat(counter.drain()).as("release of cycle %d", i).containsExactly("etcdserverpb.KV/Txn");
            }
        }
    }

    @Test
    @DisplayName("a busy tryAcquire is two requests too: the transaction, and the delete of its own queue key")
    void busyTryAcquireIsTwoRequests() {
        CallCounter counter = new CallCounter();
        try (Client client = countedClient(counter);
                LockClient a = Latchkey.connect(etcd.uri(), java.util.Map.of("leaseTtl", "60s"));
                LockClient b = onLongLease(client)) {
            String name = "round-trips-busy/" + System.nanoTime();
            b.inspect(name);
            await().atMost(Duration.ofSeconds(5)).until(() -> counter.calls.contains("etcdserverpb.Lease/LeaseGrant"));
            try (LockHandle h = a.lock(name).tryAcquire().orElseThrow()) {
                counter.drain();
                assertThat(b.lock(name).tryAcquire()).isEmpty();
                assertThat(counter.drain()).containsExactly("etcdserverpb.KV/Txn", "etcdserverpb.KV/Txn");
                assertThat(b.inspect(name))
                        .hasValueSatisfying(
                                info -> assertThat(info.fencingToken()).isEqualTo(h.fencingToken()));
            }
        }
    }

    /**
     * The lease's keep-alive keeps every key alive; a renewal only checks that each key is still there. Background
     * renewals of many locks go as one transaction of key reads per batch: 40 locks renewed every 300 ms cost about one
     * request per renewal interval and gather, not 40 (a lock by lock renewal is one KV/Range per lock).
     */
    @Test
    @DisplayName("held locks renew in batches: one transaction of key reads per batch, no read per lock")
    void heldLocksRenewInBatches() {
        CallCounter counter = new CallCounter();
        io.latchkey.LockOptions fast = io.latchkey.LockOptions.builder()
                .lease(Duration.ofSeconds(2))
                .renewInterval(Duration.ofMillis(300))
                .build();
        try (Client client = countedClient(counter);
                LockClient locks = onLongLease(client)) {
            String prefix = "round-trips-renewal/" + System.nanoTime() + "/";
            // taken at once (each acquisition is a transaction of a few ms): their renewals fall due together
            List<java.util.concurrent.CompletableFuture<LockHandle>> taking = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                taking.add(locks.lock(prefix + i, fast).acquireAsync(Duration.ofSeconds(5)));
            }
            List<LockHandle> handles = new ArrayList<>();
            for (java.util.concurrent.CompletableFuture<LockHandle> f : taking) {
                handles.add(f.join());
            }
            counter.drain();
            long start = System.nanoTime();
            await().during(Duration.ofMillis(1500))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> handles.stream().allMatch(LockHandle::isValid));
            long intervals = (System.nanoTime() - start) / Duration.ofMillis(300).toNanos();
            List<String> calls = counter.drain();
            assertThat(calls).as("no key is read on its own").doesNotContain("etcdserverpb.KV/Range");
            long renewals = calls.stream().filter("etcdserverpb.KV/Txn"::equals).count();
            assertThat(renewals)
                    .as("renewal transactions for 40 locks over %d renewal intervals (lock by lock: about %d reads)",
                            intervals, 40 * intervals)
                    .isGreaterThanOrEqualTo(intervals - 1)
                    .isLessThan(10 * intervals);
            handles.forEach(LockHandle::release);
        }
    }
}

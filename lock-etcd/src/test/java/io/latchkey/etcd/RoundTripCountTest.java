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

    @Test
    @DisplayName(
            "uncontended acquire + release: one transaction (that also reads the holder) and one delete, no lease grant")
    void uncontendedCycleIsTwoRequests() {
        CallCounter counter = new CallCounter();
        try (Client client = Client.builder()
                        .endpoints(etcd.endpoints().toArray(String[]::new))
                        .interceptor(counter)
                        .build();
                LockClient locks = Latchkey.client(EtcdLockBackend.builder(client)
                        .leaseTtl(Duration.ofSeconds(60))
                        .build())) {
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
        try (Client client = Client.builder()
                        .endpoints(etcd.endpoints().toArray(String[]::new))
                        .interceptor(counter)
                        .build();
                LockClient a = Latchkey.connect(etcd.uri(), java.util.Map.of("leaseTtl", "60s"));
                LockClient b = Latchkey.client(EtcdLockBackend.builder(client)
                        .leaseTtl(Duration.ofSeconds(60))
                        .build())) {
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
}

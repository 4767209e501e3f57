package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.etcd.RoundTripCountTest.CallCounter;
import io.latchkey.etcd.fixtures.EtcdCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Read-write locks and semaphores on the wire: requests per grant (counted by a gRPC interceptor), their own
 * keys apart from locks, and which waiters a release wakes.
 */
class SharedQueueTest {
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

    private static Client counted(CallCounter counter) {
        return Client.builder()
                .endpoints(etcd.endpoints().toArray(String[]::new))
                .interceptor(counter)
                .build();
    }

    @Test
    @DisplayName("a read lock and a semaphore grant cost what a lock costs: one transaction, and one to release")
    void sharedGrantsAreTwoRequests() {
        CallCounter counter = new CallCounter();
        try (Client client = counted(counter);
                LockClient locks = Latchkey.client(EtcdLockBackend.builder(client)
                        .leaseTtl(Duration.ofSeconds(60))
                        .build())) {
            String name = "shared-round-trips/" + System.nanoTime();
            locks.readWriteLock(name).readLock().tryAcquire().orElseThrow().release(); // first use: the lease grant
            await().atMost(Duration.ofSeconds(5)).until(() -> counter.calls.contains("etcdserverpb.Lease/LeaseGrant"));
            counter.drain();
            for (int i = 0; i < 20; i++) {
                LockHandle read =
                        locks.readWriteLock(name).readLock().tryAcquire().orElseThrow();
                assertThat(counter.drain()).as("read acquire %d", i).containsExactly("etcdserverpb.KV/Txn");
                assertThat(read.release()).isTrue();
                assertThat(counter.drain()).as("read release %d", i).containsExactly("etcdserverpb.KV/Txn");
                LockHandle permits = locks.semaphore(name, 4).tryAcquire(2).orElseThrow();
                assertThat(counter.drain()).as("permits acquire %d", i).containsExactly("etcdserverpb.KV/Txn");
                assertThat(permits.release()).isTrue();
                assertThat(counter.drain()).as("permits release %d", i).containsExactly("etcdserverpb.KV/Txn");
            }
        }
    }

    @Test
    @DisplayName("each primitive has its own keys; list() sees only locks")
    void primitivesHaveTheirOwnKeys() throws Exception {
        String name = "shared-layout/" + System.nanoTime();
        try (LockClient locks = Latchkey.connect(etcd.uri() + "/layout-test");
                Client raw = Client.builder()
                        .endpoints(etcd.endpoints().toArray(String[]::new))
                        .build()) {
            LockHandle lock = locks.lock(name).tryAcquire().orElseThrow();
            LockHandle read = locks.readWriteLock(name).readLock().tryAcquire().orElseThrow();
            LockHandle permits = locks.semaphore(name, 5).tryAcquire(3).orElseThrow();
            List<String> stored = raw
                    .getKVClient()
                    .get(
                            ByteSequence.from("layout-test/", StandardCharsets.UTF_8),
                            GetOption.builder().isPrefix(true).build())
                    .get(10, TimeUnit.SECONDS)
                    .getKvs()
                    .stream()
                    .map(kv -> kv.getKey().toString(StandardCharsets.UTF_8) + "="
                            + kv.getValue().toString(StandardCharsets.UTF_8))
                    .toList();
            String hex = LockKeys.hex(name);
            assertThat(stored).hasSize(3);
            assertThat(stored).anyMatch(k -> k.startsWith("layout-test/" + hex + "/"));
            assertThat(stored).anyMatch(k -> k.startsWith("layout-test/rw/" + hex + "/r/"));
            assertThat(stored).anyMatch(k -> k.startsWith("layout-test/sem/" + hex + "/") && k.endsWith("=3/5"));
            assertThat(locks.list("")).extracting(i -> i.name()).containsExactly(name);
            permits.release();
            read.release();
            lock.release();
        }
    }

    @Test
    @DisplayName("a release wakes only the waiter it admits: a reader behind a waiting writer sleeps on")
    void aReleaseWakesOnlyTheWaiterItAdmits() throws Exception {
        String name = "shared-wake/" + System.nanoTime();
        CallCounter readerCalls = new CallCounter();
        Map<String, String> slowRecheck = Map.of("leaseTtl", "60s", "waitRecheck", "60s");
        try (LockClient holder = Latchkey.connect(etcd.uri(), slowRecheck);
                LockClient writerClient = Latchkey.connect(etcd.uri(), slowRecheck);
                Client readerEtcd = counted(readerCalls);
                LockClient readerClient = Latchkey.client(EtcdLockBackend.builder(readerEtcd)
                        .leaseTtl(Duration.ofSeconds(60))
                        .waitRecheck(Duration.ofSeconds(60))
                        .build())) {
            LockHandle first =
                    holder.readWriteLock(name).writeLock().tryAcquire().orElseThrow();
            CompletableFuture<LockHandle> writer =
                    writerClient.readWriteLock(name).writeLock().acquireAsync(Duration.ofSeconds(30));
            await().until(() -> queueLength(name) == 2);
            CompletableFuture<LockHandle> reader =
                    readerClient.readWriteLock(name).readLock().acquireAsync(Duration.ofSeconds(30));
            await().until(() -> queueLength(name) == 3);
            await().during(Duration.ofMillis(300))
                    .until(() -> readerCalls.drain().isEmpty()); // it sleeps
            first.release();
            LockHandle w = writer.get(10, TimeUnit.SECONDS);
            await().during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> readerCalls.calls.isEmpty() && !reader.isDone());
            w.release();
            reader.get(10, TimeUnit.SECONDS).release();
        }
    }

    private static int queueLength(String name) throws Exception {
        try (Client raw = Client.builder()
                .endpoints(etcd.endpoints().toArray(String[]::new))
                .build()) {
            long n = raw.getKVClient()
                    .get(
                            ByteSequence.from("latchkey/rw/" + LockKeys.hex(name) + "/", StandardCharsets.UTF_8),
                            GetOption.builder()
                                    .isPrefix(true)
                                    .withCountOnly(true)
                                    .build())
                    .get(10, TimeUnit.SECONDS)
                    .getCount();
            return (int) n;
        }
    }
}

package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.latchkey.DistributedLock;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.Reentrancy;
import io.latchkey.mem.MemoryStore;
import io.latchkey.testing.CountingBackend;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReentrancyAndJavaLockTest {
    private final MemoryStore store = new MemoryStore();
    private final CountingBackend counting = new CountingBackend(store.newBackend());
    private final LockClient client = Latchkey.client(counting);
    private final LockClient other = Latchkey.client(store.newBackend());

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    @Test
    void perThreadReentrancySharesTheGrantWithoutStoreTrips() throws Exception {
        DistributedLock lock = client.lock(
                "r", LockOptions.builder().reentrancy(Reentrancy.PER_THREAD).build());
        LockHandle outer = lock.acquire(Duration.ofSeconds(1));
        int callsAfterOuter = counting.total();
        LockHandle inner = lock.tryAcquire().orElseThrow();
        assertThat(counting.total()).as("re-entry makes no store call").isEqualTo(callsAfterOuter);
        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        assertThat(inner.release()).isTrue();
        assertThat(inner.release()).as("a hold is released once").isFalse();
        assertThat(other.lock("r").tryAcquire()).as("outer hold still holds").isEmpty();
        assertThat(outer.release()).isTrue();
        assertThat(other.lock("r").tryAcquire()).isPresent().get().satisfies(LockHandle::close);
    }

    @Test
    void perThreadReentrancyDoesNotAdmitOtherThreads() throws Exception {
        DistributedLock lock = client.lock(
                "r2", LockOptions.builder().reentrancy(Reentrancy.PER_THREAD).build());
        try (LockHandle h = lock.tryAcquire().orElseThrow()) {
            assertThat(CompletableFuture.supplyAsync(lock::tryAcquire).get(5, TimeUnit.SECONDS))
                    .isEmpty();
        }
    }

    @Test
    void notReentrantByDefault() throws Exception {
        DistributedLock lock = client.lock("n");
        try (LockHandle h = lock.tryAcquire().orElseThrow()) {
            assertThat(lock.tryAcquire()).isEmpty();
            assertThat(lock.tryAcquire(Duration.ofMillis(50))).isEmpty();
        }
    }

    @Test
    void javaLockViewIsReentrantAndOwnedByTheLockingThread() throws Exception {
        Lock lock = client.lock("j").asJavaLock();
        lock.lock();
        lock.lock();
        assertThat(other.lock("j").tryAcquire()).isEmpty();
        assertThatExceptionOfType(IllegalMonitorStateException.class)
                .isThrownBy(() -> {
                    try {
                        CompletableFuture.runAsync(lock::unlock).get(5, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException e) {
                        throw e.getCause();
                    }
                })
                .withMessageContaining("not held by thread");
        lock.unlock();
        assertThat(other.lock("j").tryAcquire()).isEmpty();
        lock.unlock();
        assertThat(other.lock("j").tryAcquire()).isPresent().get().satisfies(LockHandle::close);
        assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
        assertThat(lock.tryLock(100, TimeUnit.MILLISECONDS)).isTrue();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
        lock.unlock();
        assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(lock::newCondition);
    }

    @Test
    void javaLockKeepsWaitingWhenInterruptedAndRestoresTheFlag() throws Exception {
        Lock lock = client.lock("ji").asJavaLock();
        LockHandle held = other.lock("ji").tryAcquire().orElseThrow();
        CompletableFuture<Boolean> flag = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            lock.lock();
            flag.complete(Thread.currentThread().isInterrupted());
            lock.unlock();
        });
        t.start();
        org.awaitility.Awaitility.await()
                .until(() -> t.getState() == Thread.State.TIMED_WAITING || t.getState() == Thread.State.WAITING);
        t.interrupt();
        assertThat(flag).isNotDone();
        held.release();
        assertThat(flag.get(5, TimeUnit.SECONDS))
                .as("interrupt status restored after lock()")
                .isTrue();
    }
}

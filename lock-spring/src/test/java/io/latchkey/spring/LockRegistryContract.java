package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.tck.LostUpdateRegister;
import io.latchkey.tck.OverlapDetector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration's expectations of a {@code LockRegistry}, as its own registries' tests state them (lock and unlock
 * across threads, tryLock with a timeout, expiry after the ttl, renewal, reentrancy, unlock by the owner only, an
 * expired lock reported at unlock, executeLocked), against {@link LatchkeyLockRegistry} on one real store. Two
 * registries on two clients stand for two application instances.
 */
abstract class LockRegistryContract {
    private final ExecutorService threads = Executors.newCachedThreadPool();

    /** A client of the store; each call may return the same one. */
    abstract LockClient client();

    /** A second client of the same store: another application instance. */
    abstract LockClient otherClient();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private static String key() {
        return "key-" + UUID.randomUUID();
    }

    private LatchkeyLockRegistry registry(LockClient client, Duration ttl) {
        return LatchkeyLockRegistry.builder(client).prefix("spring/").ttl(ttl).build();
    }

    private <T> T onAnotherThread(java.util.concurrent.Callable<T> task) throws Exception {
        return threads.submit(task).get(30, TimeUnit.SECONDS);
    }

    /** Whether another thread of {@code registry} can take {@code key} at once (it lets go again if so). */
    private boolean freeFor(LatchkeyLockRegistry registry, String key) throws Exception {
        return onAnotherThread(() -> {
            Lock theirs = registry.obtain(key);
            boolean got = theirs.tryLock();
            if (got) {
                theirs.unlock();
            }
            return got;
        });
    }

    @Test
    @DisplayName("a lock held by one thread is busy for other threads and other instances until it is unlocked")
    void lockAndUnlockAcrossThreads() throws Exception {
        LatchkeyLockRegistry here = new LatchkeyLockRegistry(client());
        LatchkeyLockRegistry there = new LatchkeyLockRegistry(otherClient());
        String key = key();
        Lock lock = here.obtain(key);
        assertThat(here.obtain(key)).as("one lock object per key").isSameAs(lock);
        lock.lock();
        try {
            assertThat(onAnotherThread(() -> here.obtain(key).tryLock())).isFalse();
            assertThat(onAnotherThread(() -> there.obtain(key).tryLock())).isFalse();
            assertThatThrownBy(() -> onAnotherThread(() -> {
                        here.obtain(key).unlock();
                        return null;
                    }))
                    .hasCauseInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining("not held by thread");
        } finally {
            lock.unlock();
        }
        assertThat(freeFor(there, key))
                .isTrue();
    }

    @Test
    @DisplayName("tryLock with a timeout waits for the holder's unlock, and gives up when the timeout runs out")
    void tryLockWithTimeout() throws Exception {
        LatchkeyLockRegistry here = new LatchkeyLockRegistry(client());
        LatchkeyLockRegistry there = new LatchkeyLockRegistry(otherClient());
        String key = key();
        Lock lock = here.obtain(key);
        lock.lock();
        long start = System.nanoTime();
        assertThat(onAnotherThread(() -> there.obtain(key).tryLock(300, TimeUnit.MILLISECONDS)))
                .isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));

        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(
                () -> {
                    Lock theirs = there.obtain(key);
                    try {
                        boolean got = theirs.tryLock(20, TimeUnit.SECONDS);
                        if (got) {
                            theirs.unlock();
                        }
                        return got;
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        // while the lock is held the waiter neither gives up nor gets it
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !waiting.isDone());
        lock.unlock();
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    @DisplayName("a grant that is not renewed expires after the ttl: another instance gets it, and the late unlock"
            + " throws ConcurrentModificationException")
    void expiresAfterTheTtl() throws Exception {
        LatchkeyLockRegistry here = registry(client(), Duration.ofSeconds(1));
        LatchkeyLockRegistry there = registry(otherClient(), Duration.ofSeconds(1));
        String key = key();
        Lock lock = here.obtain(key);
        long start = System.nanoTime(); // the grant's ttl runs from its request, not from lock()'s return
        lock.lock();
        Lock theirs = there.obtain(key);
        assertThat(theirs.tryLock(15, TimeUnit.SECONDS)).isTrue();
        // held until the holder's validity, less the core's loss guard, ran out: ttl - drift (1 % + 2 ms, the core's
        // validity clamp) - guard (ttl / 10) = 1000 - 12 - 100 ms; the loss timer never fires early
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(888));
        theirs.unlock();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("was released in the store before unlock")
                .hasMessageContaining("spring/" + key);
    }

    @Test
    @DisplayName("renewLock keeps a grant past its ttl; only the holding thread may renew")
    void renewLockKeepsTheGrant() throws Exception {
        LatchkeyLockRegistry here = registry(client(), Duration.ofSeconds(1));
        LatchkeyLockRegistry there = registry(otherClient(), Duration.ofSeconds(1));
        String key = key();
        Lock lock = here.obtain(key);
        lock.lock();
        here.renewLock(key, Duration.ofSeconds(10));
        assertThat(there.obtain(key).tryLock(2, TimeUnit.SECONDS))
                .as("renewed to 10 s: still held after the 1 s ttl")
                .isFalse();
        assertThatThrownBy(() -> onAnotherThread(() -> {
                    here.renewLock(key);
                    return null;
                }))
                .hasCauseInstanceOf(IllegalMonitorStateException.class);
        lock.unlock();
    }

    @Test
    @DisplayName("with auto-renewal (setRenewalTaskScheduler) a grant outlives its ttl for as long as it is held")
    void autoRenewalKeepsTheGrant() throws Exception {
        LatchkeyLockRegistry here = registry(client(), Duration.ofSeconds(1));
        here.setRenewalTaskScheduler(null);
        LatchkeyLockRegistry there = registry(otherClient(), Duration.ofSeconds(1));
        String key = key();
        Lock lock = here.obtain(key);
        lock.lock();
        assertThat(there.obtain(key).tryLock(2500, TimeUnit.MILLISECONDS)).isFalse();
        lock.unlock(); // no ConcurrentModificationException: it was never lost
    }

    @Test
    @DisplayName("a lock is reentrant per thread: the store lets go with the last unlock")
    void reentrantPerThread() throws Exception {
        LatchkeyLockRegistry here = new LatchkeyLockRegistry(client());
        LatchkeyLockRegistry there = new LatchkeyLockRegistry(otherClient());
        String key = key();
        DistributedLock lock = here.obtain(key);
        lock.lock();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
        assertThat(onAnotherThread(() -> there.obtain(key).tryLock())).isFalse();
        lock.unlock();
        assertThat(freeFor(there, key))
                .isTrue();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    @DisplayName("executeLocked on two instances x 3 threads never overlaps and loses no update")
    void executeLockedExcludes() throws Exception {
        List<LockRegistry<DistributedLock>> registries =
                List.of(new LatchkeyLockRegistry(client()), new LatchkeyLockRegistry(otherClient()));
        String key = key();
        OverlapDetector detector = new OverlapDetector();
        LostUpdateRegister register = new LostUpdateRegister();
        int rounds = 20;
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            LockRegistry<DistributedLock> registry = registries.get(t % 2);
            String id = "worker-" + t;
            workers.add(CompletableFuture.runAsync(
                    () -> {
                        for (int r = 0; r < rounds; r++) {
                            try {
                                registry.executeLocked(key, () -> {
                                    detector.enter(id);
                                    register.increment();
                                    detector.exit(id);
                                });
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                        }
                    },
                    threads));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        assertThat(detector.overlaps())
                .as("overlaps: %s", detector.firstOverlap())
                .isZero();
        assertThat(register.value()).isEqualTo(6L * rounds);
    }

    @Test
    @DisplayName("a key that is not a String, or not a valid lock name, is refused before the store is asked")
    void badKeysAreRefused() {
        LatchkeyLockRegistry here = new LatchkeyLockRegistry(client());
        assertThatThrownBy(() -> here.obtain(42))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be a String, was java.lang.Integer");
        assertThatThrownBy(() -> here.obtain("bad\nkey"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("control characters");
        assertThat(otherClient().list("bad")).isEmpty();
        assertThatThrownBy(() -> LatchkeyLockRegistry.builder(client()).ttl(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ttl must be positive");
    }

    @Test
    @DisplayName("expireUnusedOlderThan forgets unlocked lock objects and keeps held ones")
    void expireUnusedKeepsHeldLocks() {
        LatchkeyLockRegistry here = new LatchkeyLockRegistry(client());
        String held = key();
        String idle = key();
        Lock heldLock = here.obtain(held);
        Lock idleLock = here.obtain(idle);
        heldLock.lock();
        try {
            here.expireUnusedOlderThan(-1);
            assertThat(here.obtain(held)).isSameAs(heldLock);
            assertThat(here.obtain(idle)).isNotSameAs(idleLock);
        } finally {
            heldLock.unlock();
        }
    }
}

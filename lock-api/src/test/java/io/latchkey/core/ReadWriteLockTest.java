package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.Capability;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.Fairness;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.LockTimeoutException;
import io.latchkey.mem.MemoryStore;
import io.latchkey.mem.VirtualClock;
import io.latchkey.testing.ForwardingBackend;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/** The core's read-write lock on the in-memory store: upgrade refusal, Java views, messages, refusal, expiry. */
class ReadWriteLockTest {

    @Test
    void readmeExampleRunsAsWritten() throws Exception {
        try (LockClient client = Latchkey.connect("mem:readme-rw")) {
            DistributedReadWriteLock catalog = client.readWriteLock("catalog");
            try (LockHandle read = catalog.readLock().acquire(Duration.ofSeconds(2))) {
                System.out.println("serving from cache under token " + read.fencingToken());
            }
            try (LockHandle write = catalog.writeLock().acquire(Duration.ofSeconds(10))) {
                System.out.println("rebuilding the cache under token " + write.fencingToken());
            }
        }
    }

    @Test
    void anUpgradeIsRefusedBeforeTheStoreIsAskedAndTheReadGrantStays() {
        try (LockClient client = Latchkey.client(new MemoryStore().newBackend())) {
            DistributedReadWriteLock rw = client.readWriteLock("doc");
            LockHandle read = rw.readLock().tryAcquire().orElseThrow();
            assertThatThrownBy(() -> rw.writeLock().acquire(Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("upgrading read lock 'doc' on " + client.backend())
                    .hasMessageContaining("release the read grant first");
            assertThat(read.isValid()).isTrue();
            read.release();
            rw.writeLock().tryAcquire().orElseThrow().release();
        }
    }

    @Test
    void anotherThreadsReadGrantDoesNotCountAsAnUpgrade() throws Exception {
        try (LockClient client = Latchkey.client(new MemoryStore().newBackend())) {
            DistributedReadWriteLock rw = client.readWriteLock("doc");
            LockHandle read = rw.readLock().tryAcquire().orElseThrow();
            // this thread holds nothing: the writer simply waits for the other reader and times out
            var writer = rw.writeLock().tryAcquireAsync();
            assertThat(writer.get(5, TimeUnit.SECONDS)).isEmpty();
            read.release();
        }
    }

    @Test
    void javaLockViewsAreReentrantPerThreadOnEachSide() throws Exception {
        try (LockClient client = Latchkey.client(new MemoryStore().newBackend())) {
            DistributedReadWriteLock rw = client.readWriteLock("views");
            Lock read = rw.readLock().asJavaLock();
            Lock write = rw.writeLock().asJavaLock();
            read.lock();
            read.lock(); // re-entry: one grant in the store
            assertThat(client.held()).hasSize(1);
            read.unlock();
            read.unlock();
            assertThat(client.held()).isEmpty();
            write.lock();
            write.lock();
            assertThat(client.held()).hasSize(1);
            write.unlock();
            write.unlock();
            assertThat(client.held()).isEmpty();
        }
    }

    @Test
    void aTimeoutNamesTheSide() {
        MemoryStore store = new MemoryStore();
        try (LockClient a = Latchkey.client(store.newBackend());
                LockClient b = Latchkey.client(store.newBackend())) {
            LockHandle w = a.readWriteLock("report").writeLock().tryAcquire().orElseThrow();
            assertThatThrownBy(() -> b.readWriteLock("report").readLock().acquire(Duration.ofMillis(50)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("waiting for read lock 'report' on " + b.backend());
            w.release();
        }
    }

    @Test
    void badOptionsAndAMissingCapabilityAreRefused() {
        MemoryStore store = new MemoryStore();
        try (LockClient client = Latchkey.client(store.newBackend())) {
            assertThatThrownBy(() -> client.readWriteLock("")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.readWriteLock("x", null)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.readWriteLock(
                            "x",
                            LockOptions.builder().fairness(Fairness.REQUIRED).build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("fairness REQUIRED");
        }
        ForwardingBackend plain = new ForwardingBackend(store.newBackend()) {
            @Override
            public Set<Capability> capabilities() {
                Set<Capability> caps = EnumSet.copyOf(super.capabilities());
                caps.remove(Capability.READ_WRITE);
                return caps;
            }
        };
        try (LockClient client = Latchkey.client(plain)) {
            assertThatThrownBy(() -> client.readWriteLock("x"))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("read-write locks are not supported by " + client.backend())
                    .hasMessageContaining("Capability.READ_WRITE");
        }
    }

    @Test
    void anExpiredReadGrantIsReportedLostAndAWriterGetsIn() throws Exception {
        VirtualClock clock = new VirtualClock();
        MemoryStore store = new MemoryStore(clock);
        try (LockClient a = Latchkey.client(store.newBackend());
                LockClient b = Latchkey.client(store.newBackend())) {
            LockOptions expiring = LockOptions.builder()
                    .lease(Duration.ofSeconds(10))
                    .autoRenew(false)
                    .build();
            LockHandle read =
                    a.readWriteLock("batch", expiring).readLock().tryAcquire().orElseThrow();
            assertThat(b.readWriteLock("batch").writeLock().tryAcquire()).isEmpty();
            clock.advance(Duration.ofSeconds(11));
            LockLoss loss = read.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(loss.reason()).isEqualTo(LockLoss.Reason.EXPIRED);
            LockHandle write = b.readWriteLock("batch").writeLock().tryAcquire().orElseThrow();
            assertThat(write.fencingToken()).isGreaterThan(read.fencingToken());
            write.release();
        }
    }

    @Test
    void readmeDowngradeExampleRunsAsWritten() throws Exception {
        try (LockClient client = Latchkey.connect("mem:readme-downgrade")) {
            DistributedReadWriteLock catalog = client.readWriteLock("catalog");
            LockHandle write = catalog.writeLock().acquire(Duration.ofSeconds(10));
            long version = write.fencingToken(); // rebuildCache(...)
            try (LockHandle read = catalog.downgrade(write)) {
                assertThat(read.fencingToken()).isGreaterThan(version);
                assertThat(write.isValid()).isFalse();
                assertThat(write.release())
                        .as("the downgraded write handle has nothing to release")
                        .isFalse();
                assertThat(client.held()).containsExactly(read);
            }
            assertThat(client.held()).isEmpty();
        }
    }

    @Test
    void aReenteredWriteGrantIsNotDowngradedAndStaysHeld() {
        try (LockClient client = Latchkey.client(new MemoryStore().newBackend())) {
            DistributedReadWriteLock rw = client.readWriteLock(
                    "doc",
                    LockOptions.builder()
                            .reentrancy(io.latchkey.Reentrancy.PER_THREAD)
                            .build());
            LockHandle first = rw.writeLock().tryAcquire().orElseThrow();
            LockHandle again = rw.writeLock().tryAcquire().orElseThrow();
            assertThatThrownBy(() -> rw.downgrade(first))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("re-entered");
            assertThat(first.isValid()).isTrue();
            again.release();
            LockHandle read = rw.downgrade(first);
            assertThat(read.isValid()).isTrue();
            read.release();
        }
    }

    @Test
    void aStoreFailureReleasesTheWriteGrantAndHoldsNothing() {
        MemoryStore store = new MemoryStore();
        ForwardingBackend failing = new ForwardingBackend(store.newBackend()) {
            @Override
            public io.latchkey.spi.Grant downgrade(io.latchkey.spi.Grant write, io.latchkey.spi.AcquireRequest read) {
                throw new io.latchkey.BackendUnavailableException("store down", write.name(), description(), null);
            }
        };
        try (LockClient client = Latchkey.client(failing);
                LockClient other = Latchkey.client(store.newBackend())) {
            DistributedReadWriteLock rw = client.readWriteLock("doc");
            LockHandle write = rw.writeLock().tryAcquire().orElseThrow();
            assertThatThrownBy(() -> rw.downgrade(write)).hasMessageContaining("store down");
            assertThat(write.isValid()).isFalse();
            assertThat(client.held()).isEmpty();
            other.readWriteLock("doc").writeLock().tryAcquire().orElseThrow().release();
        }
    }
}

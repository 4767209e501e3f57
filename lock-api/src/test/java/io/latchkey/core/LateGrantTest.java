package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.mem.MemoryStore;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.testing.ForwardingBackend;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A grant that reaches the core after its lease ended (the backend retried a lost reply, or the store stalled for
 * longer than the lease) is released and the acquisition goes on: a caller never gets a handle that is already
 * invalid. Found by the TCK's lost-reply rule on ZooKeeper, whose client took 2 s to recover a create under a 2 s lease.
 */
class LateGrantTest {
    private final MemoryStore store = new MemoryStore();
    private final AtomicInteger lateGrantsLeft = new AtomicInteger();
    private final List<Long> released = new CopyOnWriteArrayList<>();
    private final LockClient client = Latchkey.client(new ForwardingBackend(store.newBackend()) {
        @Override
        public AcquireResult tryAcquire(AcquireRequest request) {
            return late(super.tryAcquire(request));
        }

        @Override
        public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
            return late(super.acquire(request, maxWait)); // the memory store waits natively
        }

        private AcquireResult late(AcquireResult r) {
            if (r instanceof Grant g && lateGrantsLeft.getAndDecrement() > 0) {
                // the reply came after the lease: its validity (from before the request) has passed
                return new Grant(g.name(), g.owner(), g.fencingToken(), System.nanoTime() - 1, g.state(), g.kind());
            }
            return r;
        }

        @Override
        public boolean release(Grant grant) {
            released.add(grant.fencingToken());
            return super.release(grant);
        }
    });
    private final LockClient other = Latchkey.client(store.newBackend());

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    @Test
    @DisplayName("a waiting acquisition releases a grant that arrived expired and returns a valid, newer one")
    void waitingAcquisitionGivesBackALateGrantAndGetsAValidOne() throws InterruptedException {
        lateGrantsLeft.set(1);
        try (LockHandle h = client.lock("late", LockOptions.builder().lease(Duration.ofSeconds(5)).build())
                .tryAcquire(Duration.ofSeconds(10))
                .orElseThrow()) {
            assertThat(h.isValid()).isTrue();
            assertThat(released).as("the late grant was given back").hasSize(1);
            assertThat(h.fencingToken()).isGreaterThan(released.get(0));
            assertThat(other.lock("late").tryAcquire()).as("the new grant is exclusive").isEmpty();
        }
    }

    @Test
    @DisplayName("a single attempt whose grant arrived expired returns nothing and leaves the lock free")
    void singleAttemptWithALateGrantReturnsNothingAndLeavesTheLockFree() {
        lateGrantsLeft.set(1);
        Optional<LockHandle> h = client.lock("late-once").tryAcquire();
        assertThat(h).isEmpty();
        assertThat(released).hasSize(1);
        try (LockHandle again = other.lock("late-once").tryAcquire().orElseThrow()) {
            assertThat(again.fencingToken()).isGreaterThan(released.get(0));
        }
    }
}

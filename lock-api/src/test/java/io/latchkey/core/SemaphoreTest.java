package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.Capability;
import io.latchkey.DistributedSemaphore;
import io.latchkey.Fairness;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.LockTimeoutException;
import io.latchkey.Reentrancy;
import io.latchkey.mem.MemoryStore;
import io.latchkey.mem.VirtualClock;
import io.latchkey.testing.ForwardingBackend;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The core's semaphore on the in-memory store: input checks, messages, refusal, and expiry on a virtual clock. */
class SemaphoreTest {

    @Test
    void readmeExampleRunsAsWritten() throws Exception {
        try (LockClient client = Latchkey.connect("mem:readme-semaphore")) {
            DistributedSemaphore partnerApi = client.semaphore("partner-api", 5); // at most 5 calls at once
            try (LockHandle permit = partnerApi.acquire(1, Duration.ofSeconds(2))) {
                System.out.println("calling under token " + permit.fencingToken() + ", " + partnerApi.availablePermits()
                        + " permits left");
                assertThat(partnerApi.availablePermits()).isEqualTo(4);
            }
            assertThat(partnerApi.availablePermits()).isEqualTo(5);
        }
    }

    @Test
    void badCountsAndOptionsAreRejectedBeforeTheStoreIsAsked() {
        MemoryStore store = new MemoryStore();
        try (LockClient client = Latchkey.client(store.newBackend())) {
            assertThatThrownBy(() -> client.semaphore("s", 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("1..10000 permits")
                    .hasMessageContaining("was opened with 0");
            assertThatThrownBy(() -> client.semaphore("s", 10_001)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.semaphore("", 2)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.semaphore("s", 2, null)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.semaphore(
                            "s",
                            2,
                            LockOptions.builder()
                                    .reentrancy(Reentrancy.PER_THREAD)
                                    .build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("reentrancy must be NONE");
            assertThatThrownBy(() -> client.semaphore(
                            "s",
                            2,
                            LockOptions.builder().fairness(Fairness.REQUIRED).build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("fairness REQUIRED");
            DistributedSemaphore two = client.semaphore("s", 2);
            assertThatThrownBy(() -> two.tryAcquire(3))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("permits to acquire from semaphore 's' must be 1..2 (its permit count), was 3");
            assertThatThrownBy(() -> two.acquireAsync(0, Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class);
            // nothing reached the store: another count is still free to define the name
            assertThat(client.semaphore("s", 3).tryAcquire(3)).isPresent();
        }
    }

    @Test
    void anotherCountIsRefusedNamingBothCountsAndTheStore() {
        MemoryStore store = new MemoryStore();
        try (LockClient a = Latchkey.client(store.newBackend());
                LockClient b = Latchkey.client(store.newBackend())) {
            LockHandle held = a.semaphore("pool", 3).tryAcquire(1).orElseThrow();
            assertThatThrownBy(() -> b.semaphore("pool", 4).tryAcquire(1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("semaphore 'pool' on " + b.backend())
                    .hasMessageContaining("has 3 permits in the store, but this view was opened with 4");
            assertThatThrownBy(() -> b.semaphore("pool", 4).availablePermits())
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(b.semaphore("pool", 3).availablePermits()).isEqualTo(2);
            held.release();
        }
    }

    @Test
    void aTimeoutSaysWhatWasAskedForAndWhere() {
        MemoryStore store = new MemoryStore();
        try (LockClient client = Latchkey.client(store.newBackend())) {
            DistributedSemaphore s = client.semaphore("reports", 3);
            LockHandle two = s.tryAcquire(2).orElseThrow();
            assertThatThrownBy(() -> s.acquire(2, Duration.ofMillis(50)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("waiting for 2 of 3 permits of semaphore 'reports' on " + client.backend())
                    .hasMessageContaining("not enough permits free");
            two.release();
        }
    }

    @Test
    void aBackendWithoutTheCapabilityRefusesPolitely() {
        MemoryStore store = new MemoryStore();
        ForwardingBackend plain = new ForwardingBackend(store.newBackend()) {
            @Override
            public Set<Capability> capabilities() {
                Set<Capability> caps = EnumSet.copyOf(super.capabilities());
                caps.remove(Capability.SEMAPHORE);
                return caps;
            }
        };
        try (LockClient client = Latchkey.client(plain)) {
            assertThatThrownBy(() -> client.semaphore("s", 2))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("semaphores are not supported by " + client.backend())
                    .hasMessageContaining("Capability.SEMAPHORE");
        }
    }

    @Test
    void anExpiredGrantIsReportedLostAndItsPermitsComeBack() throws Exception {
        VirtualClock clock = new VirtualClock();
        MemoryStore store = new MemoryStore(clock);
        try (LockClient client = Latchkey.client(store.newBackend())) {
            DistributedSemaphore s = client.semaphore(
                    "batch",
                    2,
                    LockOptions.builder()
                            .lease(Duration.ofSeconds(10))
                            .autoRenew(false)
                            .build());
            LockHandle h = s.tryAcquire(2).orElseThrow();
            assertThat(s.tryAcquire(1)).isEmpty();
            clock.advance(Duration.ofSeconds(11));
            LockLoss loss = h.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(loss.reason()).isEqualTo(LockLoss.Reason.EXPIRED);
            assertThat(h.isValid()).isFalse();
            assertThat(s.availablePermits()).isEqualTo(2);
            LockHandle next = s.tryAcquire(2).orElseThrow();
            assertThat(next.fencingToken()).isGreaterThan(h.fencingToken());
            assertThat(client.held()).containsExactly(next);
        }
    }
}

package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockListener;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.LockTimeoutException;
import io.latchkey.RetryStrategy;
import io.latchkey.mem.MemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class EventsAndExclusiveTest {
    private final MemoryStore store = new MemoryStore();
    private final LockClient client = Latchkey.client(store.newBackend());
    private final LockClient other = Latchkey.client(store.newBackend());

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    @Test
    void listenersSeeAcquireRenewReleaseLossAndFailures() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        client.addListener(new LockListener() {
            @Override
            public void acquired(String name, long token, Duration waited) {
                events.add("acquired " + name);
            }

            @Override
            public void acquireFailed(String name, Duration waited, Throwable reason) {
                events.add("failed " + name + " " + reason.getClass().getSimpleName());
            }

            @Override
            public void released(String name, long token, Duration held) {
                events.add("released " + name);
            }

            @Override
            public void renewed(String name, long token) {
                events.add("renewed " + name);
            }

            @Override
            public void lost(LockLoss loss) {
                events.add("lost " + loss.name() + " " + loss.reason());
            }
        });
        client.addListener(new LockListener() {
            @Override
            public void acquired(String name, long token, Duration waited) {
                throw new IllegalStateException("a broken listener");
            }
        });
        LockHandle a = client.lock("a").tryAcquire().orElseThrow();
        assertThat(a.renew()).isTrue();
        a.release();
        LockHandle b = client.lock("b").tryAcquire().orElseThrow();
        other.forceRelease("b");
        b.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        LockHandle c = other.lock("c").tryAcquire().orElseThrow();
        assertThatExceptionOfType(LockTimeoutException.class)
                .isThrownBy(() -> client.lock("c").acquire(Duration.ofMillis(20)));
        c.close();
        assertThat(events)
                .containsExactly(
                        "acquired a",
                        "renewed a",
                        "released a",
                        "acquired b",
                        "lost b RELEASED_BY_ADMIN",
                        "failed c LockTimeoutException");
    }

    @Test
    void runExclusiveReturnsTheResultAndReleases() throws Exception {
        String result = client.lock("x").runExclusive(Duration.ofSeconds(1), h -> "token " + h.fencingToken());
        assertThat(result).startsWith("token ");
        assertThat(client.held()).isEmpty();
        assertThat(other.lock("x").tryAcquire()).isPresent().get().satisfies(LockHandle::close);
    }

    @Test
    void runExclusivePropagatesTheTasksExceptionAndReleases() {
        assertThatExceptionOfType(IllegalStateException.class)
                .isThrownBy(() -> client.lock("y").runExclusive(Duration.ofSeconds(1), () -> {
                    throw new IllegalStateException("task failed");
                }))
                .withMessage("task failed");
        assertThat(client.held()).isEmpty();
    }

    @Test
    void runExclusiveDoesNotRunTheTaskWhenTheLockIsBusy() throws Exception {
        try (LockHandle h = other.lock("z").tryAcquire().orElseThrow()) {
            boolean[] ran = new boolean[1];
            assertThatExceptionOfType(LockTimeoutException.class)
                    .isThrownBy(() -> client.lock("z").runExclusive(Duration.ofMillis(30), () -> ran[0] = true))
                    .withMessageContaining("'z'")
                    .withMessageContaining("held by " + h.owner())
                    .withMessageContaining("token " + h.fencingToken());
            assertThat(ran[0]).isFalse();
        }
    }

    @Test
    void exhaustedRetryStrategyGivesUpEarly() {
        try (LockHandle h = other.lock("w").tryAcquire().orElseThrow()) {
            long start = System.nanoTime();
            assertThatExceptionOfType(LockTimeoutException.class)
                    .isThrownBy(() -> client.lock(
                                    "w",
                                    LockOptions.builder()
                                            .fairness(io.latchkey.Fairness.NONE)
                                            .retry(() -> List.of(Duration.ofMillis(5), Duration.ofMillis(5))
                                                    .iterator())
                                            .build())
                            .acquire(Duration.ofSeconds(30)))
                    .withMessageContaining("retry strategy ran out");
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
            assertThat(RetryStrategy.none().delays().hasNext()).isFalse();
        }
    }

    @Test
    @DisplayName("a loss the store reports before the core registered the grant is not dropped")
    void lossReportedBeforeRegistrationIsKept() throws Exception {
        LockClient c = Latchkey.client(new io.latchkey.testing.LossBeforeReturnBackend(store.newBackend()));
        try {
            LockHandle h = c.lock("early").tryAcquire().orElseThrow();
            LockLoss loss = h.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(loss.reason()).isEqualTo(LockLoss.Reason.SESSION_LOST);
            assertThat(h.isValid()).isFalse();
        } finally {
            c.close();
        }
    }

    @Test
    void closingTheClientEndsItsGrantsAsClientClosed() throws Exception {
        LockClient c = Latchkey.client(store.newBackend());
        LockHandle h = c.lock("closing").tryAcquire().orElseThrow();
        c.close();
        assertThat(h.lost().toCompletableFuture().get(5, TimeUnit.SECONDS).reason())
                .isEqualTo(LockLoss.Reason.CLIENT_CLOSED);
        assertThat(other.lock("closing").tryAcquire()).isPresent().get().satisfies(LockHandle::close);
    }
}

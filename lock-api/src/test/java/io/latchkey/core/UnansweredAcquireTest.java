package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.BackendUnavailableException;
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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * An acquisition that is interrupted or cancelled while the store has granted it without the core seeing the reply
 * leaves nothing held: the grant is found through the same owner and released, not left to its lease. Found by the TCK's
 * waiting_cancelledAsyncAcquireHoldsNothing on MongoDB, whose driver applies a write and then, because the thread was
 * interrupted meanwhile, throws instead of returning the reply. The lease here is a minute, so a leak cannot hide.
 */
class UnansweredAcquireTest {
    private static final LockOptions MINUTE = LockOptions.builder().lease(Duration.ofMinutes(1)).build();
    private static final Duration BOUND = Duration.ofSeconds(10);

    private final MemoryStore store = new MemoryStore();
    /** What the next acquisition call does after the store granted: lose the reply, or wait for an interrupt first. */
    private final AtomicReference<Mode> next = new AtomicReference<>(Mode.ANSWER);

    private final CountDownLatch inCall = new CountDownLatch(1);
    private final LockClient client = Latchkey.client(new ForwardingBackend(store.newBackend()) {
        @Override
        public AcquireResult tryAcquire(AcquireRequest request) {
            return answer(request, super.tryAcquire(request));
        }

        @Override
        public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
            return answer(request, super.acquire(request, maxWait)); // the memory store waits natively
        }

        private AcquireResult answer(AcquireRequest request, AcquireResult r) {
            Mode mode = next.getAndSet(Mode.ANSWER);
            if (mode == Mode.LOSE_REPLY_ON_INTERRUPT || mode == Mode.ANSWER_AFTER_INTERRUPT) {
                inCall.countDown();
                long end = System.nanoTime() + BOUND.toNanos(); // park returns at the interrupt, keeping the flag
                while (!Thread.currentThread().isInterrupted() && System.nanoTime() < end) {
                    LockSupport.parkNanos(end - System.nanoTime());
                }
            }
            if (mode == Mode.LOSE_REPLY || mode == Mode.LOSE_REPLY_ON_INTERRUPT) {
                throw new BackendUnavailableException(
                        "the reply to lock '" + request.name() + "' was lost", request.name(), "mem", null);
            }
            return r;
        }

        @Override
        public boolean release(Grant grant) {
            if (Thread.currentThread().isInterrupted()) { // as MongoDB's driver does
                throw new BackendUnavailableException(
                        "interrupted before releasing lock '" + grant.name() + "'", grant.name(), "mem", null);
            }
            return super.release(grant);
        }
    });
    private final LockClient other = Latchkey.client(store.newBackend());

    private enum Mode {
        ANSWER,
        LOSE_REPLY,
        LOSE_REPLY_ON_INTERRUPT,
        ANSWER_AFTER_INTERRUPT
    }

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    @Test
    @DisplayName("an interrupted acquisition whose grant's reply the interrupt cost holds nothing")
    void interruptedAcquisitionWhoseReplyWasLostHoldsNothing() throws Exception {
        next.set(Mode.LOSE_REPLY_ON_INTERRUPT);
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                client.lock("interrupted", MINUTE).acquire(Duration.ofMinutes(1)).close();
                failure.complete(null);
            } catch (Throwable e) { // NOPMD: what the acquisition ended with is the test's subject
                failure.complete(e);
            }
        });
        t.start();
        assertThat(inCall.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        t.interrupt();
        assertThat(failure.get(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isInstanceOf(InterruptedException.class);
        assertOtherClientGetsIt("interrupted");
    }

    @Test
    @DisplayName("a single attempt whose reply was lost without an interrupt fails, and its grant is left to the lease"
            + " (asking again would take the lock from a store still serving others)")
    void singleAttemptWithALostReplyIsLeftToTheLease() {
        next.set(Mode.LOSE_REPLY);
        assertThatThrownBy(() -> client.lock("lost", MINUTE).tryAcquire())
                .isInstanceOf(BackendUnavailableException.class);
        assertThat(other.inspect("lost")).isPresent();
    }

    @Test
    @DisplayName("a cancelled async acquisition whose grant's reply the interrupt cost holds nothing")
    void cancelledAcquisitionWhoseReplyWasLostHoldsNothing() throws InterruptedException {
        next.set(Mode.LOSE_REPLY_ON_INTERRUPT);
        CompletableFuture<LockHandle> f = client.lock("cancelled", MINUTE).acquireAsync(Duration.ofMinutes(1));
        assertThat(inCall.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        f.cancel(true);
        assertOtherClientGetsIt("cancelled");
    }

    @Test
    @DisplayName("a grant that reaches a cancelled async acquisition is released on a thread no longer interrupted")
    void grantReachingACancelledAcquisitionIsReleased() throws InterruptedException {
        next.set(Mode.ANSWER_AFTER_INTERRUPT);
        CompletableFuture<LockHandle> f = client.lock("late", MINUTE).acquireAsync(Duration.ofMinutes(1));
        assertThat(inCall.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        f.cancel(true);
        assertOtherClientGetsIt("late");
        await().atMost(BOUND).until(() -> client.held().isEmpty());
    }

    private void assertOtherClientGetsIt(String name) {
        await().atMost(BOUND).untilAsserted(() -> {
            Optional<LockHandle> h = other.lock(name).tryAcquire();
            assertThat(h).as("lock '%s' is free again (the store shows %s)", name, other.inspect(name))
                    .isPresent();
            h.get().close();
        });
    }
}

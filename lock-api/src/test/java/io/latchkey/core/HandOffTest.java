package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.Fairness;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.mem.MemoryStore;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.HandOver;
import io.latchkey.testing.ForwardingBackend;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A release with another thread of the same client waiting hands the lock over in one store call (HandOffs): the
 * waiter holds the grant the store made for it without asking the store, a grant nobody takes goes back to the store,
 * and another client's waiter queued in the store is not passed over.
 */
class HandOffTest {
    private final MemoryStore store = new MemoryStore();
    private final AtomicInteger attempts = new AtomicInteger();
    private final AtomicInteger handOvers = new AtomicInteger();
    private final AtomicInteger handedOver = new AtomicInteger();
    private volatile CountDownLatch handOverGate = new CountDownLatch(0);
    private volatile boolean loseHandOverReply;
    private final LockClient client = Latchkey.client(new ForwardingBackend(store.newBackend()) {
        @Override
        public AcquireResult tryAcquire(AcquireRequest request) {
            attempts.incrementAndGet();
            return super.tryAcquire(request);
        }

        @Override
        public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
            attempts.incrementAndGet();
            return super.acquire(request, maxWait);
        }

        @Override
        public HandOver handOver(Grant held, AcquireRequest next) {
            handOvers.incrementAndGet();
            try {
                handOverGate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            HandOver r = delegate().handOver(held, next);
            if (r.next() != null) {
                handedOver.incrementAndGet();
            }
            if (loseHandOverReply) {
                throw new io.latchkey.BackendUnavailableException(
                        "reply lost (test)", held.name(), delegate().description(), null);
            }
            return r;
        }
    });
    private final LockClient other = Latchkey.client(store.newBackend());

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    /** A thread of {@code c} waiting up to 30 s for {@code name}, parked (at the gate or in the store) when this returns. */
    private static Thread waiterThread(
            LockClient c, String name, LockOptions o, CompletableFuture<Optional<LockHandle>> result) {
        Thread t = new Thread(() -> {
            try {
                result.complete(c.lock(name, o).tryAcquire(Duration.ofSeconds(30)));
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        t.start();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> t.getState() == Thread.State.TIMED_WAITING || t.getState() == Thread.State.WAITING);
        return t;
    }

    private static CompletableFuture<Optional<LockHandle>> waitFor(LockClient c, String name, LockOptions o) {
        CompletableFuture<Optional<LockHandle>> f = new CompletableFuture<>();
        waiterThread(c, name, o, f);
        return f;
    }

    /**
     * Releases {@code first} on another thread while a waiter of this client waits, and makes the waiter give up after
     * the release saw it and before the store is asked; the store call is held until the caller opens
     * {@code handOverGate}. Returns the release's answer.
     */
    private CompletableFuture<Boolean> releaseWhileTheWaiterGivesUp(LockHandle first) throws Exception {
        CompletableFuture<Optional<LockHandle>> quitter = new CompletableFuture<>();
        Thread t = waiterThread(client, first.name(), LockOptions.defaults(), quitter);
        handOverGate = new CountDownLatch(1);
        CompletableFuture<Boolean> released = CompletableFuture.supplyAsync(first::release);
        await().atMost(Duration.ofSeconds(10)).until(() -> handOvers.get() == 1); // saw the waiter, store not asked yet
        t.interrupt(); // the waiter gives up
        assertThat(quitter).failsWithin(Duration.ofSeconds(10));
        return released;
    }

    @Test
    @DisplayName("a release with a local waiter hands the lock over in one store call; the waiter asks the store nothing")
    void releaseWithALocalWaiterHandsOverInOneStoreCall() throws Exception {
        LockHandle first = client.lock("h").tryAcquire().orElseThrow();
        CompletableFuture<Optional<LockHandle>> waiter = waitFor(client, "h", LockOptions.defaults());
        int attemptsBefore = attempts.get();

        assertThat(first.release()).isTrue();

        LockHandle second = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(handOvers.get()).as("hand-over calls").isEqualTo(1);
        assertThat(handedOver.get()).as("grants handed over").isEqualTo(1);
        assertThat(attempts.get()).as("store attempts by the waiter").isEqualTo(attemptsBefore);
        assertThat(second.fencingToken()).isEqualTo(first.fencingToken() + 1);
        assertThat(second.isValid()).isTrue();
        assertThat(store.newBackend().inspect("h").orElseThrow().fencingToken()).isEqualTo(second.fencingToken());
        assertThat(other.lock("h").tryAcquire()).as("the handed-over grant excludes others").isEmpty();
        assertThat(second.release()).isTrue();
        assertThat(other.lock("h").tryAcquire()).as("free after the waiter's release").isPresent();
    }

    @Test
    @DisplayName("a grant handed over to a waiter that gave up meanwhile is given back to the store")
    void aHandOffNobodyTakesIsGivenBack() throws Exception {
        LockHandle first = client.lock("g").tryAcquire().orElseThrow();
        CompletableFuture<Boolean> released = releaseWhileTheWaiterGivesUp(first);
        handOverGate.countDown();

        assertThat(released.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(handedOver.get()).as("the store made a grant for the waiter").isEqualTo(1);
        assertThat(store.newBackend().inspect("g")).as("the untaken grant was given back").isEmpty();
        assertThat(other.lock("g").tryAcquire()).isPresent();
    }

    @Test
    @DisplayName("a grant handed over while its waiter gave up is held by the next thread to enter")
    void aHandOffWhoseWaiterGaveUpGoesToTheNextThread() throws Exception {
        LockHandle first = client.lock("n").tryAcquire().orElseThrow();
        CompletableFuture<Boolean> released = releaseWhileTheWaiterGivesUp(first);
        CompletableFuture<Optional<LockHandle>> next =
                waitFor(client, "n", LockOptions.defaults()); // queued behind the releaser's permit
        int attemptsBefore = attempts.get();
        handOverGate.countDown();

        LockHandle got = next.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(released.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(attempts.get()).as("store attempts by the next thread").isEqualTo(attemptsBefore);
        assertThat(got.fencingToken()).isEqualTo(first.fencingToken() + 1);
        assertThat(store.newBackend().inspect("n").orElseThrow().fencingToken()).isEqualTo(got.fencingToken());
        got.release();
    }

    @Test
    @DisplayName("a hand-over whose reply was lost leaves nothing held: the next owner id is abandoned")
    void aHandOverWithALostReplyLeavesNothingHeld() throws Exception {
        loseHandOverReply = true;
        LockHandle first = client.lock("lost").tryAcquire().orElseThrow();
        CompletableFuture<Optional<LockHandle>> waiter = waitFor(client, "lost", LockOptions.defaults());

        assertThatThrownBy(first::release).isInstanceOf(io.latchkey.BackendUnavailableException.class);

        assertThat(handedOver.get()).as("the store handed over before the reply was lost").isEqualTo(1);
        LockHandle got = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(got.fencingToken())
                .as("the waiter's own grant, after the abandoned one")
                .isGreaterThan(first.fencingToken() + 1);
        got.release();
        assertThat(store.newBackend().inspect("lost")).isEmpty();
    }

    @Test
    @DisplayName("a waiter that asked for another lease gives the handed-over grant back and acquires its own")
    void aWaiterWithAnotherLeaseAcquiresItsOwn() throws Exception {
        LockHandle first = client.lock("l", LockOptions.builder().lease(Duration.ofSeconds(30)).build())
                .tryAcquire()
                .orElseThrow();
        CompletableFuture<Optional<LockHandle>> waiter =
                waitFor(client, "l", LockOptions.builder().lease(Duration.ofSeconds(20)).build());

        assertThat(first.release()).isTrue();

        LockHandle second = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(handedOver.get()).isEqualTo(1);
        assertThat(second.fencingToken())
                .as("its own grant, after the handed-over one")
                .isEqualTo(first.fencingToken() + 2);
        assertThat(store.newBackend().inspect("l").orElseThrow().fencingToken()).isEqualTo(second.fencingToken());
        second.release();
    }

    @Test
    @DisplayName("threads that hand over, give up and ask for other leases never overlap, lose no update, and leave the"
            + " store free and no gate behind")
    void handOffsUnderChurnKeepExclusionAndLeaveNothingHeld() throws Exception {
        String name = "churn";
        LockOptions thirty = LockOptions.builder().lease(Duration.ofSeconds(30)).build();
        LockOptions twenty = LockOptions.builder().lease(Duration.ofSeconds(20)).build();
        Duration[] waits = {Duration.ZERO, Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofSeconds(10)};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger grants = new AtomicInteger();
        AtomicInteger tokensOutOfOrder = new AtomicInteger();
        long[] register = {0}; // read, pause, write: two holders at once lose an increment
        long[] lastToken = {0};
        java.util.List<CompletableFuture<Void>> threads = new java.util.ArrayList<>();
        for (int t = 0; t < 6; t++) {
            int seed = t;
            CompletableFuture<Void> done = new CompletableFuture<>();
            threads.add(done);
            new Thread(() -> {
                        java.util.Random random = new java.util.Random(seed);
                        try {
                            for (int i = 0; i < 400; i++) {
                                LockOptions o = random.nextInt(4) == 0 ? twenty : thirty;
                                Optional<LockHandle> got =
                                        client.lock(name, o).tryAcquire(waits[random.nextInt(waits.length)]);
                                if (got.isEmpty()) {
                                    continue;
                                }
                                LockHandle h = got.get();
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                if (h.fencingToken() <= lastToken[0]) {
                                    tokensOutOfOrder.incrementAndGet();
                                }
                                lastToken[0] = h.fencingToken();
                                long v = register[0];
                                Thread.yield();
                                register[0] = v + 1;
                                grants.incrementAndGet();
                                inside.decrementAndGet();
                                if (!h.release()) {
                                    overlaps.incrementAndGet(); // its grant was gone while it held it
                                }
                            }
                            done.complete(null);
                        } catch (Throwable e) {
                            done.completeExceptionally(e);
                        }
                    })
                    .start();
        }
        CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);

        assertThat(overlaps.get()).as("holders at once, or releases that found their grant gone").isZero();
        assertThat(register[0]).as("the register after %d grants", grants.get()).isEqualTo(grants.get());
        assertThat(tokensOutOfOrder.get()).as("grants whose token was not above the previous holder's").isZero();
        assertThat(handedOver.get()).as("hand-offs made (the path under test)").isPositive();
        assertThat(store.newBackend().inspect(name)).as("the store after the last release").isEmpty();
        assertThat(((CoreLockClient) client).gates.inUse(name)).as("a gate left in use").isFalse();
        assertThat(other.lock(name).tryAcquire()).isPresent();
    }

    @Test
    @DisplayName("another client's waiter queued in the store goes before this client's waiter: the release only releases")
    void anotherClientsQueuedWaiterIsNotPassedOver() throws Exception {
        LockOptions fair = LockOptions.builder().fairness(Fairness.PREFERRED).build();
        LockHandle first = client.lock("q", fair).tryAcquire().orElseThrow();
        CompletableFuture<Optional<LockHandle>> remote = waitFor(other, "q", fair); // queued in the store
        CompletableFuture<Optional<LockHandle>> local = waitFor(client, "q", fair); // queued at the client's gate

        assertThat(first.release()).isTrue();

        LockHandle remoteHandle = remote.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(handOvers.get()).isEqualTo(1);
        assertThat(handedOver.get()).as("grants handed over past a queued waiter").isZero();
        assertThat(local).as("the local waiter, still waiting").isNotDone();
        assertThat(remoteHandle.fencingToken()).isEqualTo(first.fencingToken() + 1);
        remoteHandle.release();
        assertThat(local.get(10, TimeUnit.SECONDS)).isPresent();
    }
}

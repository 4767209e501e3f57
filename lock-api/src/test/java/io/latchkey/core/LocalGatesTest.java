package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The per-name gate of one client: a fair one-permit semaphore, not owned by a thread, counted in its map. */
class LocalGatesTest {
    private final LocalGates gates = new LocalGates();

    @Test
    @DisplayName("waiters enter in the order they queued, and a gate left by another thread lets the next one in")
    void waitersEnterInFifoOrderAndAnyThreadMayLeave() throws Exception {
        LocalGates.Gate gate = gates.use("n");
        assertThat(gate.tryEnterNow()).isTrue();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> waiters = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int id = i;
            waiters.add(CompletableFuture.runAsync(() -> {
                try {
                    assertThat(gate.tryEnter(TimeUnit.SECONDS.toNanos(30))).isTrue();
                    order.add(id);
                    gate.leave();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, runnable -> new Thread(runnable).start()));
            int queued = i + 1;
            await().atMost(Duration.ofSeconds(5)).until(() -> gate.queued() == queued);
        }
        CompletableFuture.runAsync(gate::leave, runnable -> new Thread(runnable).start()).get(5, TimeUnit.SECONDS);
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(order).containsExactly(0, 1, 2);
    }

    @Test
    @DisplayName("a newcomer never passes a queued waiter, even at the instant the permit is free")
    void aNewcomerDoesNotBargeAheadOfAQueuedWaiter() throws Exception {
        for (int round = 0; round < 20; round++) {
            LocalGates.Gate gate = gates.use("barging");
            assertThat(gate.tryEnterNow()).isTrue();
            java.util.concurrent.CountDownLatch checked = new java.util.concurrent.CountDownLatch(1);
            CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    boolean in = gate.tryEnter(TimeUnit.SECONDS.toNanos(30));
                    checked.await(); // keeps the gate until the newcomer has tried: its refusal is then for the queue
                    gate.leave();
                    return in;
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, runnable -> new Thread(runnable).start());
            await().atMost(Duration.ofSeconds(5)).until(() -> gate.queued() == 1);
            gate.leave();
            // the permit is free for an instant, or already the waiter's: either way the newcomer must not get it
            boolean barged = gate.tryEnter(0);
            if (barged) {
                gate.leave();
            }
            checked.countDown();
            assertThat(barged).as("round %d: a newcomer took the permit from the queued waiter", round).isFalse();
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
            gates.unuse(gate);
        }
    }

    @Test
    @DisplayName("a gate is shared while in use and dropped when its last user leaves")
    void gatesAreCountedAndDroppedWhenUnused() {
        LocalGates.Gate first = gates.use("counted");
        assertThat(gates.use("counted")).isSameAs(first);
        gates.unuse(first);
        assertThat(gates.use("counted")).as("still in use by one").isSameAs(first);
        gates.unuse(first);
        gates.unuse(first);
        assertThat(gates.use("counted")).as("a new gate once the last user left").isNotSameAs(first);
    }
}

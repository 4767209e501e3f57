package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.spi.Grant;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The per-name gate of one client: a fair one-permit semaphore, not owned by a thread, counted in its map. */
class LocalGatesTest {
    private final List<Grant> untaken = new CopyOnWriteArrayList<>();
    private final LocalGates gates = new LocalGates(untaken::add);

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
        assertThat(gates.inUse("counted")).as("still in the map while one user is left").isTrue();
        gates.unuse(first);
        assertThat(gates.inUse("counted")).as("dropped from the map once the last user left").isFalse();
        LocalGates.Gate again = gates.use("counted");
        gates.unuse(again);
        assertThat(gates.inUse("counted")).as("a later use counts from one again").isFalse();
    }

    @Test
    @DisplayName("a gate dropped by its last user serves the next name, free and with nobody queued")
    void aDroppedGateIsReusedForTheNextName() throws Exception {
        LocalGates.Gate first = gates.use("before");
        assertThat(first.tryEnterNow()).isTrue();
        first.leave();
        gates.unuse(first);
        LocalGates.Gate next = gates.use("after");
        assertThat(next).as("the spare is handed out again").isSameAs(first);
        assertThat(next.name).isEqualTo("after");
        assertThat(gates.inUse("before")).isFalse();
        assertThat(next.tryEnterNow()).as("free, as a new gate").isTrue();
        assertThat(gates.use("after")).as("shared under its new name").isSameAs(next);
        assertThat(next.tryEnter(0)).as("and still one permit").isFalse();
        next.leave();
        gates.unuse(next);
        gates.unuse(next);
    }

    @Test
    @DisplayName("a gate that still has a user is never handed out as a spare")
    void aGateInUseIsNeverASpare() {
        LocalGates.Gate held = gates.use("held");
        assertThat(held.tryEnterNow()).isTrue();
        gates.unuse(held); // a bug's extra unuse: the map drops it, but its permit is still taken
        assertThat(gates.use("other")).as("a taken gate is not recycled").isNotSameAs(held);
    }

    @Test
    @DisplayName("a grant parked for the next user is taken once, and the last user gives an untaken one back")
    void aParkedGrantIsTakenOnceAndAnUntakenOneIsGivenBack() {
        LocalGates.Gate gate = gates.use("parked");
        LocalGates.Gate second = gates.use("parked");
        Grant first = new Grant("parked", "next-1", 2, Long.MAX_VALUE, null);
        gate.park(new HandOffs.Parked(first, Duration.ofSeconds(30), 0));
        assertThat(gate.takeParked().grant()).isSameAs(first);
        assertThat(gate.takeParked()).as("taken a second time").isNull();

        Grant untakenGrant = new Grant("parked", "next-2", 3, Long.MAX_VALUE, null);
        gate.park(new HandOffs.Parked(untakenGrant, Duration.ofSeconds(30), 0));
        gates.unuse(second);
        assertThat(untaken).as("given back while a user remains").isEmpty();
        gates.unuse(gate);
        assertThat(untaken).as("given back by the last user").containsExactly(untakenGrant);
        assertThat(gate.parked).as("nothing left parked in the spare").isNull();
    }
}

package io.latchkey.mem;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Fairness;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * No wake-up is lost between a busy answer and the wait that follows it: a release in between makes awaitChange
 * return at once. Found by the TCK's nativeWait_releaseWakesWaiterWithoutPolling, which failed once on mem: a waiter
 * with Fairness.NONE (tryAcquire, then awaitChange) slept through a release that came between the two.
 */
class MemoryWakeUpTest {
    private final MemoryStore store = new MemoryStore();
    private final MemoryBackend holder = store.newBackend();
    private final MemoryBackend waiter = store.newBackend();

    private static AcquireRequest request(String owner) {
        return new AcquireRequest("wake", owner, Duration.ofMinutes(1), Fairness.NONE);
    }

    @Test
    @DisplayName("a release between a busy answer and the wait ends the wait at once")
    void releaseBeforeTheWaitIsNotLost() throws InterruptedException {
        Grant held = (Grant) holder.tryAcquire(request("holder"));
        AcquireRequest mine = request("waiter");
        assertThat(waiter.tryAcquire(mine)).isInstanceOf(Busy.class);
        assertThat(holder.release(held)).isTrue(); // before the waiter waits: its signal finds nobody
        long start = System.nanoTime();
        assertThat(waiter.awaitChange(mine, Duration.ofSeconds(10))).isTrue();
        assertThat(System.nanoTime() - start).isLessThan(Duration.ofSeconds(1).toNanos());
    }

    @Test
    @DisplayName("without a release since the busy answer, the wait lasts until its timeout")
    void noReleaseMeansAFullWait() throws InterruptedException {
        holder.tryAcquire(request("holder"));
        AcquireRequest mine = request("waiter");
        assertThat(waiter.tryAcquire(mine)).isInstanceOf(Busy.class);
        long start = System.nanoTime();
        assertThat(waiter.awaitChange(mine, Duration.ofMillis(300))).isFalse();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(250).toNanos());
    }
}

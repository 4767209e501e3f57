package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The grant's state lock (GrantStateLock): a plain mutex, and a thread that takes it twice is told, not deadlocked. */
class GrantStateLockTest {
    private static final class Guarded extends GrantStateLock {
        private static final long serialVersionUID = 1L;
    }

    @Test
    @DisplayName("another thread waits until the holder releases the state lock")
    void anotherThreadWaitsForTheHolder() {
        Guarded lock = new Guarded();
        lock.lockState();
        AtomicBoolean inside = new AtomicBoolean();
        CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
            lock.lockState();
            inside.set(true);
            lock.unlockState();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> lock.hasQueuedThreads());
        assertThat(inside).as("the other thread got in while the lock was held").isFalse();
        lock.unlockState();
        other.join();
        assertThat(inside).isTrue();
    }

    @Test
    @DisplayName("the holder taking it again is a bug: IllegalStateException, and the lock is still held once")
    void takingItAgainIsRefused() {
        Guarded lock = new Guarded();
        lock.lockState();
        assertThatThrownBy(lock::lockState)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("taken again by the thread that holds it");
        lock.unlockState();
        assertThat(lock.isHeldExclusively()).isFalse();
        assertThatThrownBy(lock::unlockState).isInstanceOf(IllegalMonitorStateException.class);
    }
}

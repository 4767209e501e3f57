package io.latchkey.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import java.time.Duration;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's own provider test base (shedlock-test-support: lock, no second lock, independent locks, lockAtMostFor
 * expiry, lockAtLeastFor after unlock, the fuzz test of 8 threads with DefaultLockingTaskExecutor, and the extension
 * rules) against {@link LatchkeyLockProvider} on one backend. "Locked" and "unlocked" are judged by a second client of
 * the same store ({@code inspect}), not by the provider itself.
 */
abstract class ShedLockContract extends AbstractExtensibleLockProviderIntegrationTest {
    private LatchkeyLockProvider provider;

    /** The client the provider locks with (one per test class is fine). */
    abstract LockClient client();

    /** Another client of the same store, to look at it. */
    abstract LockClient observer();

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        if (provider == null) {
            provider = new LatchkeyLockProvider(client(), "shedlock/");
        }
        return provider;
    }

    @AfterEach
    void closeProvider() {
        if (provider != null) {
            provider.close();
        }
    }

    @Test
    @DisplayName("a name Latchkey does not allow is refused before the store is asked, naming what is allowed")
    void badNameIsRefusedAndTouchesNothing() {
        LockConfiguration bad =
                new LockConfiguration(ClockProvider.now(), "report\nnightly", Duration.ofMinutes(1), Duration.ZERO);
        assertThatThrownBy(() -> getLockProvider().lock(bad))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("control characters");
        assertThat(observer().list("shedlock/report")).isEmpty();
    }

    @Override
    protected void assertLocked(String lockName) {
        assertThat(observer().inspect("shedlock/" + lockName))
                .as("lock %s in the store", lockName)
                .isPresent();
    }

    @Override
    protected void assertUnlocked(String lockName) {
        // an expiry the core noticed is released in the background: give it a moment, never the lease
        await().atMost(Duration.ofSeconds(1))
                .untilAsserted(() -> assertThat(observer().inspect("shedlock/" + lockName))
                        .as("lock %s in the store", lockName)
                        .isEmpty());
    }
}

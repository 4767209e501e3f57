package io.latchkey.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockClient;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import io.latchkey.tck.server.StoreClients;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** ShedLock's provider tests on a real redis-server (a lease store: it expires lockAtMostFor by itself). */
class RedisShedLockTest extends ShedLockContract {
    private static StoreClients store;

    @BeforeAll
    static void start() {
        RunningServer server = RedisServers.single();
        store = StoreClients.of(server, server.endpoint().uri().orElseThrow(), 2);
    }

    @AfterAll
    static void stop() {
        if (store != null) {
            store.close();
        }
    }

    @Override
    LockClient client() {
        return store.client(0);
    }

    @Override
    LockClient observer() {
        return store.client(1);
    }

    @Test
    @DisplayName("unlock before lockAtLeastUntil cuts the store's lease to it, so a crash from then on frees the lock"
            + " there and not at lockAtMostUntil")
    void unlockBeforeAtLeastCutsTheLease() {
        String name = "cut-" + UUID.randomUUID();
        Instant now = ClockProvider.now();
        SimpleLock lock = getLockProvider()
                .lock(new LockConfiguration(now, name, Duration.ofMinutes(5), Duration.ofSeconds(3)))
                .orElseThrow();
        Instant before =
                observer().inspect("shedlock/" + name).orElseThrow().expiresAt().orElseThrow();
        assertThat(before).isAfter(now.plus(Duration.ofMinutes(4)));
        lock.unlock();
        Instant after =
                observer().inspect("shedlock/" + name).orElseThrow().expiresAt().orElseThrow();
        assertThat(after).isBetween(now.plus(Duration.ofSeconds(2)), now.plus(Duration.ofSeconds(4)));
    }
}

package io.latchkey.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
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
    private static RunningServer server;
    private static LockClient client;
    private static LockClient observer;

    @BeforeAll
    static void start() {
        server = RedisServers.single();
        String uri = server.endpoint().uri().orElseThrow();
        client = Latchkey.connect(uri);
        observer = Latchkey.connect(uri);
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
            observer.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    LockClient client() {
        return client;
    }

    @Override
    LockClient observer() {
        return observer;
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
                observer.inspect("shedlock/" + name).orElseThrow().expiresAt().orElseThrow();
        assertThat(before).isAfter(now.plus(Duration.ofMinutes(4)));
        lock.unlock();
        Instant after =
                observer.inspect("shedlock/" + name).orElseThrow().expiresAt().orElseThrow();
        assertThat(after).isBetween(now.plus(Duration.ofSeconds(2)), now.plus(Duration.ofSeconds(4)));
    }
}

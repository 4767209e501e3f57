package io.latchkey.shedlock;

import io.latchkey.LockClient;
import io.latchkey.jdbc.fixtures.PostgresFixture;
import io.latchkey.servers.RunningServer;
import io.latchkey.tck.server.StoreClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's provider tests on a real PostgreSQL in lease mode (what ShedLock's JDBC users move from). */
class PostgresShedLockTest extends ShedLockContract {
    private static StoreClients store;

    @BeforeAll
    static void start() {
        RunningServer server = PostgresFixture.start();
        store = StoreClients.of(server, PostgresFixture.url(server), 2);
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
}

package io.latchkey.shedlock;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.jdbc.fixtures.PostgresFixture;
import io.latchkey.servers.RunningServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's provider tests on a real PostgreSQL in lease mode (what ShedLock's JDBC users move from). */
class PostgresShedLockTest extends ShedLockContract {
    private static RunningServer server;
    private static LockClient client;
    private static LockClient observer;

    @BeforeAll
    static void start() {
        server = PostgresFixture.start();
        String uri = PostgresFixture.url(server);
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
}

package io.latchkey.consumer;

import io.latchkey.jdbc.fixtures.PostgresFixture;
import io.latchkey.servers.RunningServer;
import org.junit.jupiter.api.Test;

class PostgresSmokeTest {
    @Test
    void acquireAndReleaseOnPostgres() {
        try (RunningServer server = PostgresFixture.start()) {
            Smoke.acquireAndRelease(PostgresFixture.url(server), "jdbc:postgresql");
        }
    }
}

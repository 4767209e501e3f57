package io.latchkey.jdbc;

import io.latchkey.jdbc.fixtures.PostgresFixture;
import io.latchkey.servers.RunningServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

@DisplayName("TCK: Postgres lease mode")
class PostgresLeaseTckTest extends JdbcBackendTck {
    private static RunningServer server;

    @BeforeAll
    static void startServer() {
        server = PostgresFixture.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected String url() {
        return PostgresFixture.url(server);
    }

    @Override
    protected JdbcMode mode() {
        return JdbcMode.LEASE;
    }

    @Override
    protected RunningServer server() {
        return server;
    }
}

package io.latchkey.jdbc;

import io.latchkey.jdbc.fixtures.MariaDbFixture;
import io.latchkey.servers.RunningServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

/** The TCK over a jdbc:mysql: URL served by the MySQL Connector/J, against the MariaDB server (no MySQL 8 server here). */
@DisplayName("TCK: jdbc:mysql: URL, MySQL Connector/J, lease mode (MariaDB server)")
class MySqlUrlConnectorJLeaseTckTest extends JdbcBackendTck {
    private static RunningServer server;

    @BeforeAll
    static void startServer() {
        server = MariaDbFixture.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @org.junit.jupiter.api.Test
    void servedByTheIntendedDriver() {
        org.assertj.core.api.Assertions.assertThat(Drivers.forUrl(url()).driverClass())
                .isEqualTo(Drivers.MYSQL);
    }

    /** Only the URL and driver differ from MariaDbLease/SessionTckTest, which run the recipe groups. */
    @Override
    protected io.latchkey.tck.TckSettings settings() {
        return super.settings().toBuilder().coreRulesOnly().build();
    }

    @Override
    protected String url() {
        return MariaDbFixture.url(server).replaceFirst("^jdbc:mariadb:", "jdbc:mysql:");
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

package io.latchkey.jdbc;

import io.latchkey.jdbc.fixtures.MariaDbFixture;
import io.latchkey.servers.RunningServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

/** The TCK over a jdbc:mysql: URL served by the MariaDB driver, against the MariaDB server (no MySQL 8 server here). */
@DisplayName("TCK: jdbc:mysql: URL, MariaDB driver, session mode (MariaDB server)")
class MySqlUrlMariaDbDriverSessionTckTest extends JdbcBackendTck {
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
                .isEqualTo(Drivers.MARIADB);
    }

    /** Only the URL and driver differ from MariaDbLease/SessionTckTest, which run the recipe groups. */
    @Override
    protected io.latchkey.tck.TckSettings settings() {
        return super.settings().toBuilder().coreRulesOnly().build();
    }

    @Override
    protected String url() {
        return MariaDbFixture.url(server).replaceFirst("^jdbc:mariadb:", "jdbc:mysql:") + "&permitMysqlScheme";
    }

    @Override
    protected JdbcMode mode() {
        return JdbcMode.SESSION;
    }

    @Override
    protected RunningServer server() {
        return server;
    }
}

package io.latchkey.jmh.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.jdbc.Dialect;
import io.latchkey.jdbc.fixtures.MariaDbFixture;
import io.latchkey.jdbc.fixtures.PostgresFixture;
import io.latchkey.servers.RunningServer;

/**
 * A database for one benchmark trial: PostgreSQL or MariaDB started by lock-jdbc's fixtures (or the server
 * named by LATCHKEY_POSTGRES_URL / LATCHKEY_MARIADB_URL), or in-memory H2; plus one HikariCP pool that both
 * Latchkey and the raw-SQL baseline use, so both pay the same pool cost.
 */
final class JdbcDatabase implements AutoCloseable {
    final Dialect dialect;
    final RunningServer server;
    final String url;
    final HikariDataSource pool;

    JdbcDatabase(String dialectName, int poolSize) {
        this.dialect = Dialect.valueOf(dialectName);
        switch (dialect) {
            case POSTGRESQL -> {
                server = PostgresFixture.start();
                url = PostgresFixture.url(server);
            }
            case MARIADB -> {
                server = MariaDbFixture.start();
                url = MariaDbFixture.url(server);
            }
            default -> {
                server = null;
                url = "jdbc:h2:mem:latchkey-jmh;DB_CLOSE_DELAY=-1";
            }
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(poolSize);
        config.setPoolName("jmh-" + dialect);
        pool = new HikariDataSource(config);
    }

    @Override
    public void close() {
        pool.close();
        if (server != null) {
            server.close();
        }
    }
}

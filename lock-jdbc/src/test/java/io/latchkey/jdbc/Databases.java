package io.latchkey.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.jdbc.fixtures.MariaDbFixture;
import io.latchkey.jdbc.fixtures.PostgresFixture;
import io.latchkey.servers.RunningServer;
import java.util.ArrayList;
import java.util.List;

/** The three databases for tests that run against each: servers started once per test class. */
final class Databases implements AutoCloseable {
    final RunningServer postgres = PostgresFixture.start();
    final RunningServer mariadb;
    private final List<HikariDataSource> pools = new ArrayList<>();

    Databases() {
        RunningServer m;
        try {
            m = MariaDbFixture.start();
        } catch (RuntimeException | Error e) {
            postgres.close();
            throw e;
        }
        mariadb = m;
    }

    String url(Dialect d) {
        return switch (d) {
            case POSTGRESQL -> PostgresFixture.url(postgres);
            case MARIADB -> MariaDbFixture.url(mariadb);
            case H2 -> "jdbc:h2:mem:latchkey-tests;DB_CLOSE_DELAY=-1";
        };
    }

    RunningServer server(Dialect d) {
        return switch (d) {
            case POSTGRESQL -> postgres;
            case MARIADB -> mariadb;
            case H2 -> null;
        };
    }

    HikariDataSource pool(Dialect d, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url(d));
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(5_000);
        HikariDataSource pool = new HikariDataSource(config);
        pools.add(pool);
        return pool;
    }

    @Override
    public void close() {
        pools.forEach(HikariDataSource::close);
        try {
            mariadb.close();
        } finally {
            postgres.close();
        }
    }
}

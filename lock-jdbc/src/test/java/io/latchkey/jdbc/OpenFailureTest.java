package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.latchkey.BackendUnavailableException;
import io.latchkey.jdbc.fixtures.MariaDbFixture;
import io.latchkey.jdbc.fixtures.PostgresFixture;
import io.latchkey.servers.RunningServer;
import io.latchkey.tck.faults.DeadEndpoints;
import io.latchkey.tck.faults.DeadEndpoints.SilentPorts;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a user sees when the database cannot be used at start: one line, within the connect timeout, naming
 * the host and never the password. A closed port (nothing listens), a silent port (a socket that accepts and
 * never answers) and a wrong password, against the real servers. (Embedded H2 has no port to be unreachable.)
 */
class OpenFailureTest {
    private static final String WRONG = "Wr0ng-Pa55word";
    private static final String RIGHT = "S3cret-Pa55word";
    /** Generous: the machine is shared and loaded; the point is 5 s, not 36. */
    private static final Duration SLACK = Duration.ofSeconds(3);

    private static RunningServer postgres;
    private static RunningServer mariadb;

    @BeforeAll
    static void start() {
        postgres = PostgresFixture.start();
        try {
            mariadb = MariaDbFixture.start();
        } catch (RuntimeException | Error e) {
            postgres.close();
            throw e;
        }
    }

    @AfterAll
    static void stop() {
        try {
            if (mariadb != null) {
                mariadb.close();
            }
        } finally {
            if (postgres != null) {
                postgres.close();
            }
        }
    }

    @ParameterizedTest(name = "{0} closed port, timeout {1}")
    @CsvSource({"jdbc:postgresql, 5s", "jdbc:mariadb, 5s", "jdbc:mysql, 5s", "jdbc:postgresql, 1s"})
    void closedPort(String scheme, String timeout) {
        expectCannotReach(scheme, DeadEndpoints.closedPort(), timeout);
    }

    @ParameterizedTest(name = "{0} silent port, timeout {1}")
    @CsvSource({
        "jdbc:postgresql, 5s",
        "jdbc:mariadb, 5s",
        "jdbc:mysql, 2s",
        "jdbc:postgresql, 2s",
        "jdbc:mariadb, 1500ms"
    })
    void silentPort(String scheme, String timeout) {
        try (SilentPorts silent = DeadEndpoints.silentPorts(1)) {
            expectCannotReach(scheme, silent.port(), timeout);
        }
    }

    private static void expectCannotReach(String scheme, int port, String timeout) {
        String url = scheme + "://127.0.0.1:" + port + "/app?user=app&password=" + RIGHT;
        Duration limit = timeout.endsWith("ms")
                ? Duration.ofMillis(Long.parseLong(timeout.replace("ms", "")))
                : Duration.ofSeconds(Long.parseLong(timeout.replace("s", "")));
        long start = System.nanoTime();
        Throwable e = catchThrowable(() -> new JdbcBackendProvider()
                .create(URI.create(url), Map.of("connectTimeout", timeout))
                .close());
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.printf(
                "%s port %d (timeout %s): %s after %d ms%n",
                scheme, port, timeout, e == null ? null : e.getMessage(), took.toMillis());
        assertThat(e).isInstanceOf(BackendUnavailableException.class);
        String first = e.getMessage().lines().findFirst().orElseThrow();
        assertThat(e.getMessage()).as("one line").isEqualTo(first);
        assertThat(first)
                .startsWith("cannot reach " + scheme + "://127.0.0.1:" + port + " within "
                        + io.latchkey.spi.StoreErrors.format(limit) + ": ");
        assertNoSecret(e, RIGHT);
        assertThat(took).as("time to the error").isLessThan(limit.plus(SLACK));
    }

    @Test
    void wrongPasswordOnPostgres() throws Exception {
        String base = PostgresFixture.url(postgres);
        try (Connection c = DriverManager.getConnection(base);
                Statement s = c.createStatement()) {
            s.execute("CREATE ROLE lk_app LOGIN PASSWORD '" + RIGHT + "'");
            s.execute("GRANT USAGE, CREATE ON SCHEMA public TO lk_app");
            String hba;
            try (var rs = s.executeQuery("SHOW hba_file")) {
                rs.next();
                hba = rs.getString(1);
            }
            // the fixture trusts everyone: ask for a password from every user but the fixture's own
            s.execute("COPY (SELECT * FROM (VALUES ('local all all trust'), ('host all postgres 127.0.0.1/32 trust'),"
                    + " ('host all all 127.0.0.1/32 scram-sha-256')) v(line)) TO '" + hba + "'");
            s.execute("SELECT pg_reload_conf()");
        }
        String hostPort = base.replaceAll("^jdbc:postgresql://([^/]+)/.*$", "$1");
        String url = "jdbc:postgresql://" + hostPort + "/postgres";
        expectAuthFailed(url, "jdbc:postgresql://" + hostPort, "lk_app", "password authentication failed");
        // and the right password works through the same path
        new JdbcBackendProvider()
                .create(URI.create(url), Map.of("user", "lk_app", "password", RIGHT))
                .close();
    }

    @Test
    void wrongPasswordOnMariaDb() throws Exception {
        String base = MariaDbFixture.url(mariadb);
        try (Connection c = DriverManager.getConnection(base);
                Statement s = c.createStatement()) {
            // the fixture runs with --skip-grant-tables; this loads them, so this server now checks passwords
            // (this session keeps the rights it logged in with)
            s.execute("FLUSH PRIVILEGES");
            for (String host : List.of("%", "localhost", "127.0.0.1")) {
                s.execute("CREATE USER IF NOT EXISTS 'lk_app'@'" + host + "' IDENTIFIED BY '" + RIGHT + "'");
                s.execute("GRANT ALL ON latchkey.* TO 'lk_app'@'" + host + "'");
            }
        }
        String hostPort = base.replaceAll("^jdbc:mariadb://([^/]+)/.*$", "$1");
        for (String scheme : List.of("jdbc:mariadb", "jdbc:mysql")) {
            String url = scheme + "://" + hostPort + "/latchkey";
            expectAuthFailed(url, scheme + "://" + hostPort, "lk_app", "Access denied");
            new JdbcBackendProvider()
                    .create(URI.create(url), Map.of("user", "lk_app", "password", RIGHT))
                    .close();
        }
    }

    private static void expectAuthFailed(String url, String target, String user, String reason) {
        for (boolean inUrl : new boolean[] {false, true}) {
            Map<String, String> settings = new HashMap<>();
            String u = url;
            if (inUrl) {
                u = url + "?user=" + user + "&password=" + WRONG;
            } else {
                settings.put("user", user);
                settings.put("password", WRONG);
            }
            String shown = u;
            Throwable e = catchThrowable(() -> new JdbcBackendProvider()
                    .create(URI.create(shown), settings)
                    .close());
            System.out.println(target + ": " + (e == null ? null : e.getMessage()));
            assertThat(e).isInstanceOf(BackendUnavailableException.class);
            assertThat(e.getMessage())
                    .as("one line")
                    .doesNotContain("\n")
                    .startsWith("authentication failed at " + target + ": ")
                    .contains(reason);
            assertNoSecret(e, WRONG);
        }
    }

    private static void assertNoSecret(Throwable e, String secret) {
        for (Throwable x = e; x != null; x = x.getCause()) {
            assertThat(String.valueOf(x.getMessage()))
                    .as("message of %s", x.getClass().getName())
                    .doesNotContain(secret);
            assertThat(x.toString()).doesNotContain(secret);
            if (x instanceof BackendUnavailableException b) {
                assertThat(String.valueOf(b.backend())).doesNotContain(secret);
            }
        }
    }
}

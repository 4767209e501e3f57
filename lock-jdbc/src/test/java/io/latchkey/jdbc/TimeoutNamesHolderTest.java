package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A LockTimeoutException says who holds the lock, on every dialect and in both modes. */
class TimeoutNamesHolderTest {
    private static Databases dbs;

    @BeforeAll
    static void start() {
        dbs = new Databases();
    }

    @AfterAll
    static void stop() {
        if (dbs != null) {
            dbs.close();
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "H2, LEASE",
        "H2, SESSION",
        "MARIADB, LEASE",
        "MARIADB, SESSION",
        "POSTGRESQL, LEASE",
        "POSTGRESQL, SESSION"
    })
    void timeoutNamesTheHolder(Dialect dialect, JdbcMode mode) throws Exception {
        Map<String, String> settings = Map.of(
                "mode",
                mode.name().toLowerCase(Locale.ROOT),
                "table",
                "holder_" + mode.name().toLowerCase(Locale.ROOT));
        try (LockClient a = client(dialect, settings);
                LockClient b = client(dialect, settings)) {
            String name = "report-" + dialect + "-" + mode;
            try (LockHandle held = a.lock(name).acquire(Duration.ofSeconds(10))) {
                assertThatThrownBy(() -> b.lock(name).acquire(Duration.ofMillis(300)))
                        .isInstanceOf(LockTimeoutException.class)
                        .hasMessageContaining("held by " + held.owner() + " (token " + held.fencingToken() + ")");
            }
        }
    }

    private static LockClient client(Dialect d, Map<String, String> settings) {
        return Latchkey.client(new JdbcBackendProvider().create(URI.create(dbs.url(d)), settings));
    }
}

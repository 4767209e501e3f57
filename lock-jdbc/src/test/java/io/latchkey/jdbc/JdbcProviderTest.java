package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Capability;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.servers.FreePorts;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** Settings, bad input and secrets, checked before or without a server (H2 in memory). */
class JdbcProviderTest {
    private static final String H2 = "jdbc:h2:mem:latchkey-provider;DB_CLOSE_DELAY=-1";

    @Test
    void connectsByUriAndWorks() {
        try (LockClient c = Latchkey.connect(H2, Map.of("namespace", "app-1", "poolSize", "3"))) {
            assertThat(c.backend()).contains("jdbc:h2:mem:latchkey-provider").contains("lease");
            assertThat(c.capabilities()).contains(Capability.SERVER_CLOCK, Capability.LISTING);
            try (LockHandle h = c.lock("job").tryAcquire().orElseThrow()) {
                assertThat(c.inspect("job"))
                        .get()
                        .extracting(i -> i.fencingToken())
                        .isEqualTo(h.fencingToken());
            }
        }
    }

    @Test
    void namespacesSeparateLocksInOneTable() {
        try (LockClient a = Latchkey.connect(H2, Map.of("namespace", "a"));
                LockClient b = Latchkey.connect(H2, Map.of("namespace", "b"))) {
            try (LockHandle ha = a.lock("same").tryAcquire().orElseThrow()) {
                assertThat(b.lock("same").tryAcquire()).hasValueSatisfying(LockHandle::close);
                assertThat(a.lock("same").tryAcquire()).isEmpty();
                assertThat(ha.isValid()).isTrue();
            }
        }
    }

    @Test
    void unknownSettingsAreRejectedWithTheKnownOnes() {
        assertThatThrownBy(() -> Latchkey.connect(H2, Map.of("tabel", "x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tabel")
                .hasMessageContaining("table")
                .hasMessageContaining("poolSize");
        assertThatThrownBy(() -> Latchkey.connect(H2, Map.of("mode", "lazy")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("JDBC setting mode must be one of lease, session, was 'lazy'");
        assertThatThrownBy(() -> Latchkey.connect(H2, Map.of("poolSize", "0")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Latchkey.connect(H2, Map.of("createTable", "yes")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void connectTimeoutIsADurationOfTheOneGrammar() {
        // a bare number is rejected (its unit would be a guess); the message names the key
        assertThatThrownBy(() -> Latchkey.connect(H2, Map.of("connectTimeout", "5000")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectTimeout")
                .hasMessageContaining("5000");
        assertThatThrownBy(() -> Latchkey.connect(H2, Map.of("connectTimeout", "11m")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("JDBC setting connectTimeout must be a duration between 1ms and 10m");
        assertThatThrownBy(() -> Latchkey.connect(H2, Map.of("connectTimeout", "0s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectTimeout");
        for (String ok : new String[] {"250ms", "1.5s", "1m30s", "PT2S"}) {
            try (LockClient c = Latchkey.connect(H2, Map.of("connectTimeout", ok))) {
                assertThat(c.backend()).as(ok).contains("jdbc:h2:mem:latchkey-provider");
            }
        }
    }

    @Test
    void hostileTableNamesAndNamespacesAreRejectedBeforeAnySql() {
        JdbcDataSource neverUsed = new JdbcDataSource();
        neverUsed.setURL("jdbc:h2:mem:never-touched");
        for (String table : new String[] {
            "locks; DROP TABLE users",
            "\"locks\"",
            "locks--",
            "1locks",
            "",
            "a.b.c",
            "lo cks",
            "x".repeat(49),
            "locks'",
            "sch\u00e9ma.t"
        }) {
            assertThatThrownBy(() -> Latchkey.connect(H2, Map.of("table", table)))
                    .as(table)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("SQL identifier");
            assertThatThrownBy(() -> JdbcLockBackend.builder(neverUsed).table(table))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> JdbcLockBackend.builder(neverUsed).namespace("a/b"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(JdbcLockBackend.ddl(Dialect.POSTGRESQL, "app.locks").get(0))
                .startsWith("CREATE TABLE IF NOT EXISTS app.locks");
    }

    @Test
    void passwordsNeverAppearInErrorsOrDescriptions() {
        String secret = "s3cr3t-Pa55";
        int closedPort = FreePorts.find();
        String url = "jdbc:postgresql://127.0.0.1:" + closedPort + "/db?user=app&password=" + secret;
        Throwable e = org.assertj.core.api.Assertions.catchThrowable(() -> Latchkey.connect(url, Map.of()));
        assertThat(e).isInstanceOf(BackendUnavailableException.class);
        // the one-line form names scheme, host and port only: the query, and the password in it, are left out
        assertThat(trace(e))
                .doesNotContain(secret)
                .contains("cannot reach jdbc:postgresql://127.0.0.1:" + closedPort + " within 5s: ");
        Throwable e2 = org.assertj.core.api.Assertions.catchThrowable(() -> Latchkey.connect(
                "jdbc:mariadb://127.0.0.1:" + closedPort + "/db", Map.of("user", "app", "password", secret)));
        assertThat(e2).isInstanceOf(BackendUnavailableException.class);
        assertThat(trace(e2)).doesNotContain(secret);
        try (LockClient c = Latchkey.connect("jdbc:h2:mem:pw;DB_CLOSE_DELAY=-1;PASSWORD=" + secret, Map.of())) {
            assertThat(c.backend()).doesNotContain(secret);
            assertThat(c.toString()).doesNotContain(secret);
        }
    }

    private static String trace(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }
}

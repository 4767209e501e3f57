package io.latchkey.jdbc;

import io.latchkey.jdbc.fixtures.PostgresFixture;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.TestCertificates;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

/**
 * PostgreSQL over TLS (pgjdbc {@code sslmode=verify-full&sslrootcert=<ca>}), lease mode, core groups, on a
 * server with {@code ssl=on} and {@code hostssl} rules only.
 */
@DisplayName("TCK: Postgres lease mode over TLS")
class PostgresTlsTckTest extends JdbcTlsTck {
    private static final TlsDatabase DB =
            new TlsDatabase(PostgresFixture::startTls, PostgresFixture::url, PostgresFixture::createRole);

    @BeforeAll
    static void startServer() {
        DB.start();
    }

    @AfterAll
    static void stopServer() {
        DB.close();
    }

    @Override
    protected TlsDatabase database() {
        return DB;
    }

    @Override
    protected String grantsQuery() {
        return "SELECT table_name || ': ' || string_agg(privilege_type, ', ' ORDER BY privilege_type)"
                + " FROM information_schema.table_privileges WHERE grantee = current_user GROUP BY table_name";
    }

    @Override
    protected java.util.List<String> expectedGrants() {
        return java.util.List.of("latchkey_locks: INSERT, SELECT, UPDATE");
    }

    @Override
    protected String grantStatement(String privileges, String object, String role) {
        return "GRANT " + privileges + " ON " + (object.endsWith("_rw_tokens") ? "SEQUENCE " : "") + object + " TO "
                + role;
    }

    /**
     * Session mode's read-write locks take their tokens from the {@code _rw_tokens} sequence: its USAGE, and the
     * session table's three rights, are all they need (lock-jdbc README, least privilege).
     */
    @org.junit.jupiter.api.Test
    void leastPrivilegeSessionReadWriteLocksNeedOnlyTheSequence() throws Exception {
        String url = createRole("latchkey_srw", LEASE_PRIVILEGES, "latchkey_srw");
        grant("USAGE", "latchkey_srw_rw_tokens", "latchkey_srw");
        java.util.Map<String, String> session = java.util.Map.of("mode", "session", "table", "latchkey_srw");
        try (io.latchkey.LockClient a = io.latchkey.Latchkey.connect(url, session);
                io.latchkey.LockClient b = io.latchkey.Latchkey.connect(url, session)) {
            try (io.latchkey.LockHandle r = a.readWriteLock("lp-srw").readLock().tryAcquire().orElseThrow()) {
                org.assertj.core.api.Assertions.assertThat(r.fencingToken()).isPositive();
                org.assertj.core.api.Assertions.assertThat(
                                b.readWriteLock("lp-srw").writeLock().tryAcquire(java.time.Duration.ofMillis(300)))
                        .isEmpty();
            }
            try (io.latchkey.LockHandle w =
                    b.readWriteLock("lp-srw").writeLock().acquire(java.time.Duration.ofSeconds(10))) {
                org.assertj.core.api.Assertions.assertThat(w.isValid()).isTrue();
            }
        }
    }

    @Override
    protected String url(String tls, PasswordForm form) {
        String hostPort = DB.server().endpoint().hostAndPort();
        return switch (form) {
            case NONE -> "jdbc:postgresql://" + hostPort + "/postgres?user=" + user() + "&" + tls;
            case QUERY -> "jdbc:postgresql://" + hostPort + "/postgres?user=" + user() + "&password=" + PASSWORD + "&"
                    + tls;
            case USER_INFO -> "jdbc:postgresql://" + user() + ":" + PASSWORD + "@" + hostPort + "/postgres?" + tls;
        };
    }

    @Override
    protected String verifyFull(Path ca) {
        return "sslmode=verify-full&sslrootcert=" + ca;
    }

    @Override
    protected String plaintext() {
        return "sslmode=disable";
    }

    @Override
    protected String plaintextRefusal() {
        return "no encryption";
    }

    @Override
    protected String tlsRequiredQuery() {
        return "SELECT current_setting('ssl') = 'on' AND NOT EXISTS (SELECT 1 FROM pg_hba_file_rules WHERE type <> 'hostssl')";
    }

    @Override
    protected String tlsVersionQuery() {
        return "SELECT version FROM pg_stat_ssl WHERE pid = pg_backend_pid() AND ssl";
    }
}

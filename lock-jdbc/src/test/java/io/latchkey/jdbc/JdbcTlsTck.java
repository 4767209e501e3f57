package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.TestCertificates;
import io.latchkey.tck.TckSettings;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The TCK's core groups over TLS with full verification, on a real server that serves TLS only, in lease mode,
 * <em>as a least-privileged role</em>: {@value #APP_ROLE}, with a password and only {@value #LEASE_PRIVILEGES} on
 * the lock table, which the server's administrator created with the backend's DDL (the fixtures'
 * {@code createRole}); the backend starts with its default {@code createTable=true} and runs no DDL. Plus what
 * makes that run believable: the TCK's URL really negotiates TLS, the server refuses plaintext, a certificate that
 * does not verify fails the connect with one line naming the server and the TLS problem, never the password; the
 * TCK's role has exactly its grants and may not create a table; a role without UPDATE gets a one-line error naming
 * the privilege and the table; session mode works for a role with rights on its own table only (forced release
 * included). The recipe, fault and primitive groups run on the plaintext classes: TLS changes the transport only.
 * Outage (SIGSTOP) and restart hooks stay those of {@link JdbcBackendTck}.
 */
abstract class JdbcTlsTck extends JdbcBackendTck {
    /** The role's password; never in any message. PostgreSQL checks it (scram-sha-256), MariaDB too. */
    static final String PASSWORD = "Tls-S3cret-Pa55";

    /** The least-privileged role the TCK runs as. */
    static final String APP_ROLE = "latchkey_app";

    /** The smallest grant on the lease table that passes the TCK's core groups. */
    static final String LEASE_PRIVILEGES = "SELECT, INSERT, UPDATE";

    /** Where the password is written in the URL. */
    enum PasswordForm {
        NONE,
        QUERY,
        USER_INFO
    }

    /** The user of {@link #url(String, PasswordForm)}: the TCK's least-privileged role. */
    protected final String user() {
        return APP_ROLE;
    }

    /**
     * One class's TLS-only server, started in its {@code @BeforeAll} and closed in its {@code @AfterAll}, with the
     * least-privileged role the TCK runs as: the fixture's {@code startTls}, {@code url} (the administrator's) and
     * {@code createRole}.
     */
    static final class TlsDatabase implements AutoCloseable {
        /** A fixture's {@code startTls}. */
        interface Starter {
            RunningServer start(TestCertificates certs);
        }

        /** A fixture's {@code createRole}. */
        interface RoleMaker {
            String create(RunningServer server, String role, String password, String privileges, String... tables);
        }

        private final Starter starter;
        private final java.util.function.Function<RunningServer, String> adminUrl;
        private final RoleMaker roles;
        private TestCertificates certs;
        private RunningServer server;
        private String appUrl;

        TlsDatabase(Starter starter, java.util.function.Function<RunningServer, String> adminUrl, RoleMaker roles) {
            this.starter = starter;
            this.adminUrl = adminUrl;
            this.roles = roles;
        }

        /** Starts the server and creates the lock table and the TCK's role with {@link JdbcTlsTck#LEASE_PRIVILEGES}. */
        void start() {
            certs = TestCertificates.create();
            try {
                server = starter.start(certs);
                appUrl = roles.create(server, APP_ROLE, PASSWORD, LEASE_PRIVILEGES, "latchkey_locks");
            } catch (RuntimeException | Error e) {
                close();
                throw e;
            }
        }

        TestCertificates certs() {
            return certs;
        }

        RunningServer server() {
            return server;
        }

        @Override
        public void close() {
            try {
                if (server != null) {
                    server.close();
                }
            } finally {
                if (certs != null) {
                    certs.close();
                }
            }
        }
    }

    /** This class's server and role. */
    protected abstract TlsDatabase database();

    /** The TCK's URL: the least-privileged role's. */
    @Override
    protected final String url() {
        return database().appUrl;
    }

    @Override
    protected final RunningServer server() {
        return database().server;
    }

    /** The server's administrator URL (PostgreSQL's superuser, MariaDB's root), for what a role may not see. */
    protected final String adminUrl() {
        return database().adminUrl.apply(database().server);
    }

    /**
     * Creates (as the administrator) {@code tables} with the backend's DDL and a role {@code role} with
     * {@link #PASSWORD} and only {@code privileges} on them.
     *
     * @return the role's URL, with full TLS verification
     */
    protected final String createRole(String role, String privileges, String... tables) {
        return database().roles.create(database().server, role, PASSWORD, privileges, tables);
    }

    /** SQL listing the grants of the current role, one per row, in the form of {@link #expectedGrants()}. */
    protected abstract String grantsQuery();

    /** What {@link #grantsQuery()} returns for the TCK's role, the login-only row of MariaDB left out. */
    protected abstract java.util.List<String> expectedGrants();

    /**
     * The URL of the server under test: {@code scheme://[user:pw@]127.0.0.1:port/db?[user=u&password=pw&]<tls>}.
     *
     * @param tls the TLS parameters, e.g. {@code sslmode=disable}
     * @param form where the password goes
     */
    protected abstract String url(String tls, PasswordForm form);

    /** The driver's TLS parameters with full verification against {@code ca}. */
    protected abstract String verifyFull(Path ca);

    /** The driver's parameter that turns TLS off. */
    protected abstract String plaintext();

    /** What the server answers a plaintext connection. */
    protected abstract String plaintextRefusal();

    /** SQL whose one value is this session's TLS protocol version, blank or null without TLS. */
    protected abstract String tlsVersionQuery();

    /** SQL whose one boolean value says the server is configured to refuse plaintext. */
    protected abstract String tlsRequiredQuery();

    @Override
    protected JdbcMode mode() {
        return JdbcMode.LEASE;
    }

    /** The 2 s short lease of the server classes; core groups only. */
    @Override
    protected TckSettings settings() {
        return super.settings().toBuilder()
                .coreRulesOnly()
                .build();
    }

    @Test
    void tlsTheTckUrlNegotiatesTls() throws SQLException {
        try (Connection c = DriverManager.getConnection(url());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(tlsVersionQuery())) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).as("TLS version of the TCK's session").startsWith("TLSv1.");
        }
        try (Connection c = DriverManager.getConnection(adminUrl()); // pg_hba_file_rules: superuser only
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(tlsRequiredQuery())) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getBoolean(1)).as(tlsRequiredQuery()).isTrue();
        }
    }

    @Test
    void tlsTheServerRefusesPlaintextFromTheUserItAcceptsOverTls() {
        String url = url(plaintext(), PasswordForm.NONE);
        Throwable direct = catchThrowable(() -> DriverManager.getConnection(url).close());
        assertThat(direct).as("plaintext through the driver").isInstanceOf(SQLException.class);
        assertThat(direct.getMessage()).contains(plaintextRefusal());
        Throwable viaLatchkey = catchThrowable(() -> Latchkey.connect(url, Map.of()).close());
        System.out.println(getClass().getSimpleName() + " plaintext: " + viaLatchkey.getMessage());
        assertThat(viaLatchkey).isInstanceOf(BackendUnavailableException.class);
        assertThat(viaLatchkey.getMessage())
                .doesNotContain("\n")
                .doesNotContain("\r")
                .contains(hostAndPort())
                .contains(plaintextRefusal());
    }

    @ParameterizedTest(name = "password {0}")
    @EnumSource(PasswordForm.class)
    void tlsAnUntrustedCertificateIsOneLineNamingTheServerAndTheProblem(PasswordForm form) {
        try (TestCertificates unrelated = TestCertificates.create()) {
            String url = url(verifyFull(unrelated.caCertificate()), form);
            if (form != PasswordForm.NONE) {
                assertThat(url).contains(PASSWORD);
            }
            Throwable e = catchThrowable(() -> Latchkey.connect(url, Map.of()).close());
            System.out.println(getClass().getSimpleName() + " untrusted (" + form + "): " + e.getMessage());
            assertThat(e).isInstanceOf(BackendUnavailableException.class);
            assertThat(e.getMessage())
                    .doesNotContain("\n")
                    .doesNotContain("\r")
                    .contains(hostAndPort())
                    .contains("TLS: the server's certificate is not trusted");
            for (Throwable x = e; x != null; x = x.getCause()) {
                assertThat(String.valueOf(x.getMessage())).doesNotContain(PASSWORD);
                assertThat(x.toString()).doesNotContain(PASSWORD);
                if (x instanceof BackendUnavailableException b) {
                    assertThat(String.valueOf(b.backend())).doesNotContain(PASSWORD);
                }
            }
        }
    }

    /** The TCK ran as a role with exactly its grants: no other right, and no right to create a table. */
    @Test
    void leastPrivilegeTheTckRoleHasOnlyItsGrants() throws SQLException {
        java.util.List<String> grants = new java.util.ArrayList<>();
        try (Connection c = DriverManager.getConnection(url());
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery(grantsQuery())) {
                while (rs.next()) {
                    if (!rs.getString(1).startsWith("GRANT USAGE ON *.*")) { // MariaDB: the login itself
                        grants.add(rs.getString(1));
                    }
                }
            }
            Throwable create = catchThrowable(() -> s.execute("CREATE TABLE latchkey_not_allowed (i INTEGER)"));
            // why the backend looks before it creates: both servers check the right to create first, so even
            // CREATE TABLE IF NOT EXISTS of a table that exists fails for this role
            Dialect dialect = url().startsWith("jdbc:postgresql:") ? Dialect.POSTGRESQL : Dialect.MARIADB;
            String ddl = JdbcLockBackend.ddl(dialect, "latchkey_locks").get(0);
            Throwable ifNotExists = catchThrowable(() -> s.execute(ddl));
            assertThat(ifNotExists).as(ddl).isInstanceOf(SQLException.class);
            System.out.println(getClass().getSimpleName() + " grants of " + APP_ROLE + ": " + grants
                    + "; CREATE TABLE: " + create.getMessage() + "; CREATE TABLE IF NOT EXISTS latchkey_locks: "
                    + ifNotExists.getMessage());
            assertThat(create).isInstanceOf(SQLException.class);
            assertThat(((SQLException) create).getSQLState()).isIn("42501", "42000");
        }
        assertThat(grants).containsExactlyElementsOf(expectedGrants());
    }

    /**
     * Each of the three rights is needed: a role without one of them on the lock table fails, at start (SELECT:
     * the backend reads the table when it starts) or at its first acquisition (INSERT, UPDATE: the acquisition
     * is an upsert), with one line that names the table, the privilege it lacks and the ones it needs; never the
     * password. The table exists, so the backend (default {@code createTable=true}) runs no DDL.
     */
    @ParameterizedTest(name = "without {0}")
    @ValueSource(strings = {"SELECT", "INSERT", "UPDATE"})
    void leastPrivilegeAMissingPrivilegeIsNamedInOneLine(String missing) {
        String others = String.join(
                ", ",
                java.util.Arrays.stream(LEASE_PRIVILEGES.split(", "))
                        .filter(p -> !p.equals(missing))
                        .toList());
        String url = createRole("latchkey_no_" + missing.toLowerCase(java.util.Locale.ROOT), others, "latchkey_locks");
        Throwable e = catchThrowable(() -> {
            try (LockClient client = Latchkey.connect(url, Map.of())) {
                client.lock("least-privilege").tryAcquire();
            }
        });
        System.out.println(getClass().getSimpleName() + " without " + missing + ": " + e.getMessage());
        assertThat(e).isInstanceOf(BackendUnavailableException.class);
        assertThat(e.getMessage())
                .doesNotContain("\n")
                .doesNotContain("\r")
                .contains("the role lacks " + missing + " on table latchkey_locks; it needs SELECT, INSERT, UPDATE on"
                        + " it (see lock-jdbc README, least privilege)");
        for (Throwable x = e; x != null; x = x.getCause()) {
            assertThat(String.valueOf(x.getMessage())).doesNotContain(PASSWORD);
            assertThat(x.toString()).doesNotContain(PASSWORD);
        }
    }

    /**
     * Session mode needs the same three rights, on its own table ({@code latchkey_session_locks}): a role with
     * nothing else acquires, is seen by another client, is forced out by that client (which ends the holder's
     * session: allowed between sessions of one user), and the other client then takes the lock.
     */
    @Test
    void leastPrivilegeSessionModeNeedsRightsOnItsTableOnly() throws InterruptedException {
        String url = createRole("latchkey_session", LEASE_PRIVILEGES, "latchkey_session_locks");
        Map<String, String> session = Map.of("mode", "session");
        try (LockClient holder = Latchkey.connect(url, session);
                LockClient admin = Latchkey.connect(url, session)) {
            LockHandle h = holder.lock("least-privilege-session").acquire(Duration.ofSeconds(10));
            assertThat(admin.inspect("least-privilege-session"))
                    .hasValueSatisfying(i -> assertThat(i.owner()).isEqualTo(h.owner()));
            assertThat(admin.lock("least-privilege-session").tryAcquire()).isEmpty();
            assertThat(admin.forceRelease("least-privilege-session")).isTrue();
            try (LockHandle mine = admin.lock("least-privilege-session").acquire(Duration.ofSeconds(10))) {
                assertThat(mine.fencingToken()).isGreaterThan(h.fencingToken());
            }
        }
    }

    /** The administrator's statement granting {@code privileges} on {@code object} to the role {@code role}. */
    protected abstract String grantStatement(String privileges, String object, String role);

    /** Runs {@link #grantStatement} as the administrator. */
    protected final void grant(String privileges, String object, String role) throws SQLException {
        try (Connection c = DriverManager.getConnection(adminUrl());
                Statement s = c.createStatement()) {
            s.execute(grantStatement(privileges, object, role));
        }
    }

    /**
     * Semaphores and read-write locks (lease mode) need the README's grants on the {@code _permits} and {@code _rw}
     * tables and nothing more: a role with exactly those and the lock table's three rights runs both, with a waiter
     * woken by a release, a writer giving up behind a reader and a downgrade. A role without them fails its first
     * semaphore in one line that names the table and what it needs, never the password.
     */
    @Test
    void leastPrivilegeSemaphoresAndReadWriteLocksNeedOnlyTheirTables() throws Exception {
        String url = createRole("latchkey_prims", LEASE_PRIVILEGES, "latchkey_prims");
        grant("SELECT, INSERT, UPDATE, DELETE", "latchkey_prims_permits", "latchkey_prims");
        grant("SELECT, INSERT, UPDATE, DELETE", "latchkey_prims_rw", "latchkey_prims");
        Map<String, String> table = Map.of("table", "latchkey_prims");
        try (LockClient a = Latchkey.connect(url, table);
                LockClient b = Latchkey.connect(url, table)) {
            LockHandle one = a.semaphore("lp-sem", 1).tryAcquire(1).orElseThrow();
            java.util.concurrent.CompletableFuture<LockHandle> waiter =
                    b.semaphore("lp-sem", 1).acquireAsync(1, Duration.ofSeconds(20));
            assertThat(b.semaphore("lp-sem", 1).availablePermits()).isZero();
            one.release();
            waiter.get(20, java.util.concurrent.TimeUnit.SECONDS).release();
            try (LockHandle r = a.readWriteLock("lp-rw").readLock().tryAcquire().orElseThrow()) {
                assertThat(r.fencingToken()).isPositive();
                assertThat(b.readWriteLock("lp-rw").writeLock().tryAcquire(Duration.ofMillis(300)))
                        .isEmpty();
            }
            LockHandle w = a.readWriteLock("lp-rw").writeLock().tryAcquire().orElseThrow();
            a.readWriteLock("lp-rw").downgrade(w).release();
        }
        String bare = createRole("latchkey_prims_bare", LEASE_PRIVILEGES, "latchkey_prims_bare");
        Throwable e = catchThrowable(() -> {
            try (LockClient c = Latchkey.connect(bare, Map.of("table", "latchkey_prims_bare"))) {
                c.semaphore("lp-sem", 1).tryAcquire(1);
            }
        });
        System.out.println(getClass().getSimpleName() + " semaphore without its grant: " + e.getMessage());
        assertThat(e).isInstanceOf(BackendUnavailableException.class);
        assertThat(e.getMessage())
                .doesNotContain("\n")
                .contains("on table latchkey_prims_bare_permits; it needs SELECT, INSERT, UPDATE, DELETE on it")
                .doesNotContain(PASSWORD);
    }

    private String hostAndPort() {
        RunningServer s = server();
        return s.endpoint().hostAndPort();
    }
}
